// The floor: the least a correct mutating webhook can do. It parses the
// AdmissionReview, echoes the uid and allows, on node:https with the same
// certificate as topogate. Run as its own process, like topogate:
//   node bench/noop-webhook.ts CERT_DIR PORT

import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [certDir = 'certs', port = '9443'] = process.argv.slice(2);

/** Reviews answered so far: GET /answered reads it, for throughput measured inside a load's run (bench/overload.ts). */
let answered = 0;
/** Connections past their TLS handshake: GET /secured reads it, so that a run is measured once all are open. */
let secured = 0;

const server = createServer(
  { cert: readFileSync(join(certDir, 'tls.crt')), key: readFileSync(join(certDir, 'tls.key')), minVersion: 'TLSv1.2' },
  (request, response) => {
    if (request.method === 'GET') {
      response
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(request.url === '/answered' ? `${answered}\n` : request.url === '/secured' ? `${secured}\n` : 'ok\n');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let review: { apiVersion?: unknown; request?: { uid?: unknown } };
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        response.writeHead(400, { 'content-type': 'text/plain' }).end('body is not JSON\n');
        return;
      }
      const body = JSON.stringify({
        apiVersion: review.apiVersion ?? 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: review.request?.uid ?? '', allowed: true },
      });
      answered++;
      response
        .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
        .end(body);
    });
  },
);
server.on('secureConnection', (socket) => {
  secured++;
  socket.once('close', () => secured--);
});
// Longer than the API server's 90 s idle timeout, as a webhook should be.
server.keepAliveTimeout = 95_000;
server.listen(Number(port), '127.0.0.1', () => process.send?.('listening'));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});

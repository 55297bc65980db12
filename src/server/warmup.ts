// A cold process spends several milliseconds on its first request (the TLS
// session, the HTTP adapter, the body stream, JSON and the engine all run
// their code for the first time), beyond a budget of a few ms: the first real
// Pods would be skipped. So before the server says it serves, it sends itself
// a few dry-run reviews over TLS (one is not enough for V8 to compile the
// path), answered by a twin of the app whose metrics are thrown away. They
// carry a one-time token, so that no other request ever reaches the twin.

import { request } from 'node:https';

const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'topogate-warm-up',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    namespace: 'default',
    operation: 'CREATE',
    dryRun: true,
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'warm-up', labels: { app: 'warm-up' } },
      spec: { containers: [{ name: 'c', image: 'warm-up', resources: { requests: { cpu: '1', memory: '1Gi' } } }] },
    },
  },
});

/** Where to reach a server listening on `host`: the loopback address for a wildcard. */
export function loopbackFor(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  return host === '::' ? '::1' : host;
}

/** Measured: after ten, a new connection's first review takes about what later ones do. */
const rounds = 10;

/** The header that carries the token. */
export const warmUpHeader = 'x-topogate-warm-up';

/** The HTTP status of the last warm-up answer (200 unless deciding failed). */
export async function warmUp(host: string, port: number, token: string): Promise<number> {
  let status = 0;
  for (let round = 0; round < rounds; round++) status = await send(host, port, token);
  return status;
}

function send(host: string, port: number, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // The server's own certificate, on a loopback call it makes itself: nothing to verify.
    const req = request(
      {
        host: loopbackFor(host),
        port,
        path: '/mutate',
        method: 'POST',
        agent: false,
        rejectUnauthorized: false,
        headers: { 'content-type': 'application/json', [warmUpHeader]: token },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(review);
  });
}

// serve --client-ca: /mutate answers only a client whose certificate that CA
// signed (as the API server presents one from its AdmissionConfiguration
// kubeconfig); the probes and /metrics need none. The client certificates
// are made with node-forge (client-pki.ts), as an admin's PKI would make them.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { issueCertificates } from '../../../src/certs/issue.ts';
import { writeCertificates } from '../../../src/certs/write.ts';
import { parseServeArgs } from '../../../src/cli/serve.ts';
import { clientCaProblem, readClientCa } from '../../../src/server/clientAuth.ts';
import { clientPki, type ClientPem } from './client-pki.ts';
import { metricValue, postJson, send, startTestServer, until, type Running } from './https.ts';

const review = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1',
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    object: { metadata: { name: 'p' } },
  },
};
const trusted = clientPki('api-server-webhook-client-ca', 'kube-apiserver-webhook-client');
const stranger = clientPki('someone-else-ca', 'kube-apiserver-webhook-client');
let running: Running;
let serverCa: string;

before(async () => {
  running = await startTestServer({ clientCa: trusted.caCert });
  serverCa = running.certificates.caCert;
});
after(() => running.stop());

const mutate = (client: Partial<ClientPem>) =>
  send(
    running.server.url,
    '/mutate',
    serverCa,
    { method: 'POST', headers: { 'content-type': 'application/json' }, ...client },
    JSON.stringify(review),
  );

test('a client certificate signed by --client-ca reaches /mutate', async () => {
  const reply = await mutate(trusted.client);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json().response.uid, 'u-1');
});

test('no client certificate, or one from another CA: 401 on /mutate, counted; the probes and /metrics need none', async () => {
  const before = await metricValue(running, 'topogate_client_certificate_refused_total');
  const none = await mutate({});
  assert.equal(none.status, 401);
  assert.equal(none.json().reason, 'Unauthorized');
  assert.match(
    none.json().message,
    /^no client certificate was presented; \/mutate needs a certificate signed by the --client-ca/,
  );
  const foreign = await mutate(stranger.client);
  assert.equal(foreign.status, 401);
  assert.match(foreign.json().message, /the client certificate was refused/);
  const other = await send(running.server.url, '/mutate', serverCa, { method: 'GET' });
  assert.equal(other.status, 401, 'another method on /mutate: the certificate is checked first');
  assert.equal(await metricValue(running, 'topogate_client_certificate_refused_total'), before + 3);
  for (const path of ['/healthz', '/readyz', '/metrics'])
    assert.equal((await send(running.server.url, path, serverCa)).status, 200, path);
});

test(
  'a caller without the certificate is refused before its body is read, so it never holds one of the in-flight places',
  // Half the pause: ample for a refusal on a loaded machine, and a server that waits for the body still fails.
  { timeout: 30_000 },
  async () => {
    // The rest of the body would come a minute later: only an answer that does not wait for it passes.
    const reply = await send(running.server.url, '/mutate', serverCa, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: ['{"apiVersion":', '"admission.k8s.io/v1"}'],
      pauseMs: 60_000,
    });
    assert.equal(reply.status, 401);
    assert.equal(reply.headers.connection, 'close');
    assert.equal(await metricValue(running, 'topogate_in_flight_requests'), 0);
  },
);

test('after the serving certificate rotates, client certificates are still checked against --client-ca', async () => {
  const next = issueCertificates({ service: 'topogate', namespace: 'test', localhost: true });
  await writeCertificates(running.certDir, next);
  const both = [serverCa, next.caCert];
  await until(
    async () => (await metricValue(running, 'topogate_certificate_reloads_total', { result: 'applied' })) >= 1,
    'the new serving certificate',
    10_000,
  );
  assert.equal(
    (
      await send(
        running.server.url,
        '/mutate',
        both,
        { method: 'POST', headers: { 'content-type': 'application/json' }, ...trusted.client },
        JSON.stringify(review),
      )
    ).status,
    200,
  );
  assert.equal((await postJson(running.server.url, both, review)).status, 401);
});

test('--client-ca FILE: resolved from the cwd, and must hold a PEM certificate', async () => {
  const parsed = parseServeArgs(['--client-ca', 'pki/webhook-clients.crt'], '/srv', {});
  assert.ok(parsed.ok);
  assert.equal(parsed.config.clientCa, '/srv/pki/webhook-clients.crt');
  await assert.rejects(readClientCa('/nonexistent/ca.crt'), /--client-ca \/nonexistent\/ca\.crt: ENOENT/);
  await assert.rejects(
    readClientCa(new URL('../../../package.json', import.meta.url).pathname),
    /is not a CA certificate: it holds no PEM certificate/,
  );
  assert.equal(clientCaProblem(trusted.caCert), undefined);
  assert.equal(clientCaProblem('not a certificate'), 'it holds no PEM certificate');
  assert.ok(clientCaProblem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') !== undefined);
});

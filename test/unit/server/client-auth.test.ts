// serve --client-ca: /mutate answers only a client whose certificate that CA
// signed (as the API server presents one from its AdmissionConfiguration
// kubeconfig); the probes and /metrics need none. The client certificates
// are made here with node-forge, as an admin's PKI would make them.

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import forge from 'node-forge';
import { issueCertificates } from '../../../src/certs/issue.ts';
import { writeCertificates } from '../../../src/certs/write.ts';
import { parseServeArgs } from '../../../src/cli/serve.ts';
import { clientCaProblem, readClientCa } from '../../../src/server/clientAuth.ts';
import { metricValue, postJson, send, startTestServer, type Running } from './https.ts';

interface Pem {
  readonly cert: string;
  readonly key: string;
}

function keyPair(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey; pem: string } {
  // Node makes the key (fast); forge the certificate.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), pem: privateKey };
}

function certificate(subject: string, key: forge.pki.PublicKey, issuer: { name: string; key: forge.pki.rsa.PrivateKey }, serial: string, ca: boolean): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = key;
  cert.serialNumber = serial;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3_600_000);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  cert.setIssuer([{ name: 'commonName', value: issuer.name }]);
  cert.setExtensions(ca ? [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, critical: true }] : [{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true }, { name: 'extKeyUsage', clientAuth: true }]);
  cert.sign(issuer.key, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** A CA and one client certificate it signed. */
function clientPki(caName: string, clientName: string): { caCert: string; client: Pem } {
  const ca = keyPair();
  const caCert = certificate(caName, ca.publicKey, { name: caName, key: ca.privateKey }, '01', true);
  const client = keyPair();
  return { caCert, client: { cert: certificate(clientName, client.publicKey, { name: caName, key: ca.privateKey }, '02', false), key: client.pem } };
}

const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'Pod' }, object: { metadata: { name: 'p' } } } };
const trusted = clientPki('api-server-webhook-client-ca', 'kube-apiserver-webhook-client');
const stranger = clientPki('someone-else-ca', 'kube-apiserver-webhook-client');
let running: Running;
let serverCa: string;

before(async () => {
  running = await startTestServer({ clientCa: trusted.caCert });
  serverCa = running.certificates.caCert;
});
after(() => running.stop());

const mutate = (client: Partial<Pem>) => send(running.server.url, '/mutate', serverCa, { method: 'POST', headers: { 'content-type': 'application/json' }, ...client }, JSON.stringify(review));

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
  assert.match(none.json().message, /needs a certificate signed by the --client-ca/);
  const foreign = await mutate(stranger.client);
  assert.equal(foreign.status, 401);
  assert.match(foreign.json().message, /the client certificate was refused/);
  assert.equal(await metricValue(running, 'topogate_client_certificate_refused_total'), before + 2);
  for (const path of ['/healthz', '/readyz', '/metrics']) assert.equal((await send(running.server.url, path, serverCa)).status, 200, path);
});

test('after the serving certificate rotates, client certificates are still checked against --client-ca', async () => {
  const next = issueCertificates({ service: 'topogate', namespace: 'test', localhost: true });
  await writeCertificates(running.certDir, next);
  const both = [serverCa, next.caCert];
  for (let attempt = 0; (await metricValue(running, 'topogate_certificate_reloads_total', { result: 'applied' })) < 1; attempt++) {
    assert.ok(attempt < 400, 'the new serving certificate was never applied');
    await new Promise((done) => setTimeout(done, 25));
  }
  assert.equal((await send(running.server.url, '/mutate', both, { method: 'POST', headers: { 'content-type': 'application/json' }, ...trusted.client }, JSON.stringify(review))).status, 200);
  assert.equal((await postJson(running.server.url, both, review)).status, 401);
});

test('--client-ca FILE: resolved from the cwd, and must hold a PEM certificate', async () => {
  const parsed = parseServeArgs(['--client-ca', 'pki/webhook-clients.crt'], '/srv', {});
  assert.ok(parsed.ok);
  assert.equal(parsed.config.clientCa, '/srv/pki/webhook-clients.crt');
  await assert.rejects(readClientCa('/nonexistent/ca.crt'), /--client-ca \/nonexistent\/ca\.crt: ENOENT/);
  await assert.rejects(readClientCa(new URL('../../../package.json', import.meta.url).pathname), /is not a CA certificate: it holds no PEM certificate/);
  assert.equal(clientCaProblem(trusted.caCert), undefined);
  assert.equal(clientCaProblem('not a certificate'), 'it holds no PEM certificate');
  assert.ok(clientCaProblem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') !== undefined);
});

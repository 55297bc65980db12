// What the server offers an attacker on the network: TLS 1.2+ with forward
// secret AEAD suites only, HTTP/1.1 only (no HTTP/2, so no rapid reset), and
// logs that never hold a Pod's contents, whatever the level or the outcome.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { connect, type ConnectionOptions } from 'node:tls';
import pino from 'pino';
import type { Decision } from '../../../src/policy/types.ts';
import { tlsSettings } from '../../../src/server/tls.ts';
import { postJson, send, startTestServer, type Running } from './https.ts';

const secret = 'hunter2-s3cr3t-token';
let logged = '';
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logged += chunk.toString();
    done();
  },
});
let running: Running;

before(async () => {
  running = await startTestServer({
    log: pino({ level: 'debug' }, capture),
    decide: (request): Decision => {
      if (request.name === 'explode') throw new Error('engine bug');
      return {
        allowed: true,
        patch: [{ op: 'add', path: '/metadata/labels', value: { placed: 'yes' } }],
        warnings: [],
        auditAnnotations: {},
        applied: ['p'],
        matched: ['p'],
      };
    },
  });
});
after(() => running.stop());

/** Resolves with the negotiated protocol, cipher and ALPN, or rejects when the server refuses the handshake. */
function handshake(
  options: ConnectionOptions,
): Promise<{ protocol: string | null; cipher: string; alpn: string | false }> {
  const { port } = running.server;
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port, ca: running.certificates.caCert, servername: 'localhost', ...options },
      () => {
        resolve({
          protocol: socket.getProtocol(),
          cipher: socket.getCipher().standardName,
          alpn: socket.alpnProtocol ?? false,
        });
        socket.end();
      },
    );
    socket.once('error', reject);
  });
}

test('TLS 1.3 by default; TLS 1.2 only with an ECDHE AEAD suite; nothing older', async () => {
  assert.equal((await handshake({})).protocol, 'TLSv1.3');
  const modern = await handshake({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' });
  assert.equal(modern.protocol, 'TLSv1.2');
  assert.equal(modern.cipher, 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
  for (const weak of ['ECDHE-RSA-AES128-SHA', 'ECDHE-RSA-AES256-SHA384', 'AES128-GCM-SHA256', 'AES256-SHA']) {
    await assert.rejects(
      handshake({ maxVersion: 'TLSv1.2', ciphers: weak }),
      { code: 'ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE' },
      `${weak} is refused by the server`,
    );
  }
  await assert.rejects(
    handshake({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' }),
    { code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' },
    'TLS 1.1 is refused by the server',
  );
  assert.equal(tlsSettings.minVersion, 'TLSv1.2');
  for (const suite of tlsSettings.ciphers.split(':'))
    assert.match(suite, /^ECDHE-(RSA|ECDSA)-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)$/);
});

test('HTTP/2 is not offered (so rapid reset, CVE-2023-44487, has no stream to reset)', async () => {
  await assert.rejects(handshake({ ALPNProtocols: ['h2'] }), { code: 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' });
  assert.equal((await handshake({ ALPNProtocols: ['h2', 'http/1.1'] })).alpn, 'http/1.1');
});

test('no Pod contents in the logs, even at debug: not on success, refusal or failure', async () => {
  const { url } = running.server;
  const ca = running.certificates.caCert;
  const pod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, annotations: { token: secret } },
    spec: {
      containers: [
        {
          name: 'app',
          image: `registry.example/${secret}`,
          env: [{ name: 'PASSWORD', value: secret }],
          args: [`--password=${secret}`],
        },
      ],
    },
  });
  const review = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `uid-${name}`,
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      namespace: 'default',
      object: pod(name),
      ...extra,
    },
  });

  assert.equal((await postJson(url, ca, review('ok'))).status, 200);
  assert.equal((await postJson(url, ca, review('explode'))).json().response.warnings.length, 1);
  // A refusal's message (logged at debug) may quote a wrong envelope field (apiVersion, kind) but never request.object.
  assert.equal((await postJson(url, ca, review('bad', { uid: '' }))).status, 400);
  assert.equal((await postJson(url, ca, review('proto', JSON.parse(`{"__proto__": {"x": "${secret}"}}`)))).status, 400);
  assert.equal(
    (
      await send(
        url,
        '/mutate',
        ca,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        `{"truncated": "${secret}`,
      )
    ).status,
    400,
  );

  assert.match(logged, /"uid":"uid-ok"/, 'requests are logged at debug, by uid and name');
  assert.match(logged, /deciding failed/);
  assert.ok(
    !logged.includes(secret),
    `a secret reached the logs:\n${logged
      .split('\n')
      .filter((line) => line.includes(secret))
      .join('\n')}`,
  );
  assert.ok(!logged.includes('registry.example'), 'no image names either');
});

// A certificate file caught empty (a slow shell redirect, a full disk) changes
// nothing: at start-up it is a clear error, and while serving the pair in use
// keeps serving; no reload can crash the process.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { issueCertificates } from '../../../src/certs/issue.ts';
import { startWebhookServer } from '../../../src/server/server.ts';
import { metricValue, send, startTestServer, until } from './https.ts';

const pair = issueCertificates({ service: 'topogate', namespace: 'test', localhost: true });

const startOn = (certDir: string) =>
  startWebhookServer({
    host: '127.0.0.1',
    port: 0,
    certDir,
    budgetMs: 5,
    decide: () => ({ allowed: true, patch: [], warnings: [], auditAnnotations: {}, applied: [], matched: [] }),
    checks: {},
    log: pino({ level: 'silent' }),
    registry: new Registry(),
  });

for (const file of ['tls.crt', 'tls.key']) {
  test(`a 0-byte ${file} while serving is rejected and the pair in use keeps serving`, async () => {
    const running = await startTestServer();
    try {
      await writeFile(join(running.certDir, file), '');
      await until(
        async () => (await metricValue(running, 'topogate_certificate_reloads_total', { result: 'rejected' })) === 1,
        `the empty ${file} to be rejected`,
      );
      const reply = await send(running.server.url, '/healthz', running.certificates.caCert);
      assert.equal(reply.status, 200);
      assert.equal(await metricValue(running, 'topogate_certificate_reloads_total', { result: 'applied' }), 0);
    } finally {
      await running.stop();
    }
  });

  test(`a 0-byte ${file} at start-up is refused with a message naming it`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'topogate-empty-'));
    try {
      await writeFile(join(dir, 'tls.crt'), file === 'tls.crt' ? '' : pair.tlsCert);
      await writeFile(join(dir, 'tls.key'), file === 'tls.key' ? '' : pair.tlsKey);
      await assert.rejects(startOn(dir), { message: `the certificate in ${dir} cannot serve: ${file} is empty` });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test('a key that is not the certificate’s is refused at start-up', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-mismatch-'));
  const other = issueCertificates({ service: 'other', namespace: 'test' });
  try {
    await writeFile(join(dir, 'tls.crt'), pair.tlsCert);
    await writeFile(join(dir, 'tls.key'), other.tlsKey);
    await assert.rejects(startOn(dir), {
      message: `the certificate in ${dir} cannot serve: tls.key is not the key of tls.crt`,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

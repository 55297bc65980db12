// A rotation that cannot be read (permissions, a directory where a file
// belongs) is said at warn and counted, not left at debug: the certificate in
// use expires while nobody looks.

import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { issueCertificates } from '../../../src/certs/issue.ts';
import { writeCertificates } from '../../../src/certs/write.ts';
import { watchCertificates } from '../../../src/server/certificates.ts';
import { readKeyPair } from '../../../src/server/tls.ts';
import { until } from './https.ts';

test('a changed certificate that cannot be read: a warning and topogate_certificate_reloads_total{result="unreadable"}', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-certs-'));
  const lines: { level: number; msg: string }[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString())), done()) }),
  );
  const registry = new Registry();
  const certificates = issueCertificates({ service: 'topogate', namespace: 'test', localhost: true });
  await writeCertificates(dir, certificates);
  const watch = watchCertificates({
    dir,
    initial: await readKeyPair(dir),
    apply: () => {},
    log,
    registry,
    settleMs: 10,
  });
  try {
    // Root reads any file whatever its mode, so a directory stands in the key's place (EISDIR, like EACCES: no read).
    await rm(join(dir, 'tls.key'));
    await mkdir(join(dir, 'tls.key'));
    const unreadable = async () =>
      (await registry.getSingleMetric('topogate_certificate_reloads_total')!.get()).values.find(
        (value) => value.labels.result === 'unreadable',
      )?.value ?? 0;
    await until(async () => (await unreadable()) >= 1, 'the unreadable pair to be counted');
    const warning = lines.find((line) => line.level === 40);
    assert.match(warning?.msg ?? '', /cannot read the changed certificate/);
  } finally {
    watch.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

// serve with no --cert-dir on a read-only package (the image's root filesystem, a root-owned global
// install): the first-start certificates go to the fallback directory instead of failing.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { parseServeArgs } from '../../../../src/cli/serve.ts';
import { ensureCertificates } from '../../../../src/cli/serve/certificates.ts';

const log = pino({ level: 'silent' });

test('a default certificate directory that cannot be written falls back, once, and is reused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-cert-fallback-'));
  try {
    // A directory under a plain file can never be made: as read-only as it gets, even for root.
    await writeFile(join(dir, 'package'), '');
    const unwritable = join(dir, 'package', 'certs');
    const fallback = join(dir, 'fallback');
    assert.equal(await ensureCertificates(unwritable, log, fallback), fallback);
    const first = await readFile(join(fallback, 'tls.crt'), 'utf8');
    assert.match(first, /BEGIN CERTIFICATE/);
    assert.equal(await ensureCertificates(unwritable, log, fallback), fallback);
    assert.equal(await readFile(join(fallback, 'tls.crt'), 'utf8'), first, 'made once, then reused');
    await assert.rejects(ensureCertificates(unwritable, log), /ENOTDIR/, 'a directory given by flag has no fallback');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('only the default --cert-dir has a fallback, in TMPDIR', () => {
  const defaults = parseServeArgs([], process.cwd(), {});
  assert.ok(defaults.ok);
  assert.equal(defaults.config.certFallbackDir, join(tmpdir(), 'topogate-certs'));
  const given = parseServeArgs(['--cert-dir', '/etc/topogate/certs'], process.cwd(), {});
  assert.ok(given.ok);
  assert.equal(given.config.certFallbackDir, undefined);
});

import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { parseServeArgs, startTopogate } from '../../../src/cli/serve.ts';
import { send, until } from './https.ts';

const policies = fileURLToPath(new URL('../../../policies/', import.meta.url));

test('/readyz follows the policy store: 503 until a set loads, then 200 that names a failed reload', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-ready-'));
  const policyDir = join(dir, 'policies');
  await cp(policies, policyDir, { recursive: true, filter: (source) => !source.includes('/tests') });
  await writeFile(
    join(policyDir, 'broken.yaml'),
    'apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: broken}\nspec: {rules: {numa: {mode: Sometimes}}}\n',
  );
  const parsed = parseServeArgs(
    ['--policies', policyDir, '--cert-dir', join(dir, 'certs'), '--port', '0'],
    process.cwd(),
    {},
  );
  assert.ok(parsed.ok);
  const running = await startTopogate(parsed.config, { log: pino({ level: 'silent' }), registry: new Registry() });
  try {
    const ca = await readFile(join(dir, 'certs', 'ca.crt'), 'utf8');
    const first = await send(running.url, '/readyz', ca);
    assert.equal(first.status, 503);
    assert.match(first.text, /^\[-\]policies not ready: policies not loaded: .*broken\.yaml/m);

    await rm(join(policyDir, 'broken.yaml'));
    await until(async () => (await send(running.url, '/readyz', ca)).status === 200, 'the fixed policies to load');

    await writeFile(join(policyDir, 'broken.yaml'), 'kind: [');
    await until(
      async () => (await send(running.url, '/readyz', ca)).text.includes('last reload failed'),
      'the failed reload to show',
    );
    const degraded = await send(running.url, '/readyz', ca, { headers: { accept: 'application/json' } });
    assert.equal(degraded.status, 200);
    assert.match(
      degraded.json().checks.policies.reason,
      /^last reload failed: .*broken\.yaml.*; serving policy set version 1$/,
    );
  } finally {
    await running.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

// The README's examples give their documented answers on a loaded machine: `serve` as `npm start` runs it
// (the demo cluster from files, --defer overrun by default), with a budget every request overruns, as a busy
// machine makes it. No controller can release a deferred Pod from files, so a late Pod is decided late, never
// admitted unplaced; only --defer never admits it unchanged.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { parseServeArgs, startTopogate } from '../../../src/cli/serve.ts';
import { postJson } from '../server/https.ts';

const examples = fileURLToPath(new URL('../../../examples/admission/', import.meta.url));
/** Every request overruns this (the time before the decision alone is more), as on a machine under load. */
const OVERRUN = ['--budget-ms', '0.000001'];

async function answers(flags: readonly string[]): Promise<Record<string, { allowed: boolean; patched: boolean }>> {
  const certDir = await mkdtemp(join(tmpdir(), 'topogate-late-'));
  const parsed = parseServeArgs(['--cert-dir', certDir, '--port', '0', ...OVERRUN, ...flags], process.cwd(), {});
  assert.ok(parsed.ok);
  const running = await startTopogate(parsed.config, { log: pino({ level: 'silent' }), registry: new Registry() });
  try {
    const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
    const result: Record<string, { allowed: boolean; patched: boolean }> = {};
    for (const name of ['pod-create-web', 'pod-create-gpu-training', 'pod-create-denied']) {
      const review = JSON.parse(await readFile(join(examples, `${name}.json`), 'utf8'));
      const { response } = (await postJson(running.url, ca, review)).json();
      result[name] = { allowed: response.allowed, patched: typeof response.patch === 'string' };
    }
    return result;
  } finally {
    await running.stop();
    await rm(certDir, { recursive: true, force: true });
  }
}

test('npm start under load: web and GPU Pods are placed, the denied example is denied', async () => {
  assert.deepEqual(await answers([]), {
    'pod-create-web': { allowed: true, patched: true },
    'pod-create-gpu-training': { allowed: true, patched: true },
    'pod-create-denied': { allowed: false, patched: false },
  });
});

test('--defer never under load keeps the round-1 answer: admitted unchanged', async () => {
  assert.deepEqual(await answers(['--defer', 'never']), {
    'pod-create-web': { allowed: true, patched: false },
    'pod-create-gpu-training': { allowed: true, patched: false },
    'pod-create-denied': { allowed: true, patched: false },
  });
});

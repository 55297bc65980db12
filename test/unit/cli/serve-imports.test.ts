// What `serve` loads: the Kubernetes client (~80 MB of RSS) only for
// `--topology kube`, node-forge only to make certificates. Only Node's own
// modules are imported statically here, so the hook below sees every module
// the test loads.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';

const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
const loaded = (fragment: string) => [...resolved].some((url) => url.includes(fragment));
const KUBE_CLIENT = '/node_modules/@kubernetes/client-node/';
const FORGE = '/node_modules/node-forge/';
const bin = fileURLToPath(new URL('../../../bin/topogate.ts', import.meta.url));

test('serve with a file topology and certificates loads neither @kubernetes/client-node nor node-forge; --topology kube loads the client', async () => {
  const { default: pino } = await import('pino');
  const { Registry } = await import('prom-client');
  const { parseServeArgs, startTopogate } = await import('../../../src/cli/serve.ts');
  const dir = await mkdtemp(join(tmpdir(), 'topogate-serve-imports-'));
  const shell = () => ({ log: pino({ level: 'silent' }), registry: new Registry() });
  try {
    // Made in another process, so that this one loads node-forge only if serve does.
    await promisify(execFile)(process.execPath, [
      bin,
      'certs',
      '--service',
      'topogate',
      '--namespace',
      'test',
      '--out',
      dir,
      '--localhost',
    ]);
    const files = parseServeArgs(['--port', '0', '--cert-dir', dir], process.cwd(), {});
    assert.ok(files.ok);
    assert.notEqual(files.config.topology, 'kube');
    const running = await startTopogate(files.config, shell());
    await running.stop();
    assert.ok(loaded('/src/sources/topology/file-topology.ts'), 'the hook saw the file topology load');
    assert.ok(
      !loaded(KUBE_CLIENT),
      [...resolved]
        .filter((url) => url.includes(KUBE_CLIENT))
        .slice(0, 3)
        .join('\n'),
    );
    assert.ok(!loaded(FORGE));

    // A kubeconfig naming no cluster: start-up fails, after loading the client.
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    const kube = parseServeArgs(
      ['--port', '0', '--cert-dir', dir, '--topology', 'kube', '--kubeconfig', kubeconfig],
      process.cwd(),
      {},
    );
    assert.ok(kube.ok);
    await assert.rejects(startTopogate(kube.config, shell()), { message: `no cluster in ${kubeconfig}` });
    assert.ok(loaded(KUBE_CLIENT));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('start-up leaves no gc() behind for other contexts', async () => {
  const { default: pino } = await import('pino');
  const { Registry } = await import('prom-client');
  const { parseServeArgs, startTopogate } = await import('../../../src/cli/serve.ts');
  const dir = await mkdtemp(join(tmpdir(), 'topogate-serve-gc-'));
  try {
    const parsed = parseServeArgs(['--port', '0', '--cert-dir', dir], process.cwd(), {});
    assert.ok(parsed.ok);
    const running = await startTopogate(parsed.config, { log: pino({ level: 'silent' }), registry: new Registry() });
    await running.stop();
    assert.equal(runInNewContext('typeof gc'), 'undefined');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { stderrLog } from '../../../src/cli/stderr-log.ts';

test('a one-shot command logs plain warning lines, and nothing below warn', () => {
  let written = '';
  const stderr = new PassThrough();
  stderr.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const log = stderrLog('controlplane', stderr);
  log.info('quiet');
  log.warn({ source: 'nodes' }, 'topology source nodes: connect ECONNREFUSED');
  log.error('scrape failed');
  assert.equal(
    written,
    'topogate controlplane: warning: topology source nodes: connect ECONNREFUSED\n' +
      'topogate controlplane: error: scrape failed\n',
  );
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('`controlplane` against an unreachable API server writes no JSON log line to stderr', async () => {
  const kubeconfig = join(tmpdir(), `topogate-cli-stderr-${process.pid}.yaml`);
  const server = `https://127.0.0.1:${await closedPort()}`;
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server}"}}]\n` +
      'users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
  );
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await main(['controlplane', '--kubeconfig', kubeconfig, '--timeout', '2', '--window', '1s'], {
    stdout,
    stderr,
    stdin: new PassThrough(),
    cwd: process.cwd(),
  });
  assert.equal(code, 1);
  const lines = err.trimEnd().split('\n');
  assert.ok(
    lines.some((line) => line.startsWith('topogate controlplane: warning: ')),
    err,
  );
  assert.deepEqual(
    lines.filter((line) => line.startsWith('{')),
    [],
  );
});

test('serve keeps every Lease in one namespace: only the --lease-namespace flag reads the Pod’s namespace', () => {
  const root = new URL('../../../src/', import.meta.url);
  const readers = (readdirSync(root, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => readFileSync(new URL(file, root), 'utf8').includes('serviceaccount/namespace'));
  assert.deepEqual(readers, [join('cli', 'serve', 'flags', 'controlplane.ts')]);
});

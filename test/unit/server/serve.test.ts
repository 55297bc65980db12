import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { parseServeArgs, startTopogate } from '../../../src/cli/serve.ts';
import { postJson, send } from './https.ts';

const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(packageRoot, 'bin', 'topogate.ts');

function config(args: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseServeArgs(args, '/work/here', env);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
  return parsed.config;
}

function problem(args: string[]): string {
  const parsed = parseServeArgs(args, '/work/here', {});
  assert.ok(!parsed.ok);
  return parsed.message;
}

test("defaults are the package's embedded demo, whatever the cwd; given paths are from the cwd", () => {
  const defaults = config([]);
  assert.equal(defaults.policies, join(packageRoot, 'policies'));
  assert.deepEqual(defaults.topology, [join(packageRoot, 'examples', 'cluster')]);
  assert.equal(defaults.certDir, join(packageRoot, 'certs'));
  assert.equal(defaults.host, '127.0.0.1');
  assert.equal(defaults.port, 8443);
  assert.equal(defaults.budgetMs, 5);
  assert.equal(defaults.maxSourceAgeMs, 600_000);
  const given = config(['--policies', 'p', '--cert-dir', '/abs', '--topology', 'a.yaml', 'b', '--topology', 'c']);
  assert.equal(given.policies, '/work/here/p');
  assert.equal(given.certDir, '/abs');
  assert.deepEqual(given.topology, ['/work/here/a.yaml', '/work/here/c', '/work/here/b']);
});

test('inside a cluster the topology is watched and the port is open to the Service', () => {
  const inCluster = config([], { KUBERNETES_SERVICE_HOST: '10.96.0.1' });
  assert.equal(inCluster.topology, 'kube');
  assert.equal(inCluster.host, '0.0.0.0');
  assert.equal(
    config(['--topology', 'kube', '--kubeconfig', 'k', '--etcd-metrics', 'https://10.0.0.1:2381/metrics']).kubeconfig,
    '/work/here/k',
  );
});

test('bad flags are usage errors that say what is wrong', () => {
  assert.equal(problem(['--port', '70000']), '--port must be a whole number from 0 to 65535, not "70000"');
  assert.equal(problem(['--budget-ms', '0']), '--budget-ms must be a positive number of milliseconds, not "0"');
  assert.equal(
    problem(['--max-source-age', '10']),
    '--max-source-age must be a duration such as 90s, 10m or 1h, not "10"',
  );
  assert.equal(
    problem(['--log-level', 'loud']),
    '--log-level must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
  );
  assert.equal(problem(['--topology', 'kube', 'x.yaml']), '--topology kube cannot be combined with paths');
  assert.equal(problem(['--kubeconfig', 'k']), '--kubeconfig and --etcd-metrics need --topology kube');
  assert.equal(
    problem(['--topology', 'kube', '--etcd-metrics', 'etcd:2381']),
    '--etcd-metrics "etcd:2381" is not an http(s) URL',
  );
  assert.equal(problem(['stray']), 'unexpected argument "stray"');
  assert.match(problem(['--nope']), /Unknown option '--nope'/);
});

// A generous budget: this machine may be loaded, and the budget's own path is tested elsewhere.
test('topogate serve: makes certificates on first start, turns ready, answers, and stops cleanly on SIGTERM', async () => {
  const certDir = await mkdtemp(join(tmpdir(), 'topogate-serve-'));
  await writeFile(join(certDir, 'README.md'), 'not a certificate\n');
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--cert-dir', certDir, '--log-level', 'debug', '--budget-ms', '10000'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    const logged: Record<string, any>[] = [];
    const serving = new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const entry = JSON.parse(line);
        logged.push(entry);
        if (entry.msg === 'webhook serving') resolve(entry.url);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const url = await serving;
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
    assert.equal((await send(url, '/readyz', ca)).status, 200);
    const review = JSON.parse(
      await readFile(join(packageRoot, 'examples', 'admission', 'pod-create-web.json'), 'utf8'),
    );
    const reply = await postJson(url, ca, review, '?timeout=10s');
    assert.equal(reply.status, 200);
    assert.equal(reply.json().response.patchType, 'JSONPatch', reply.text);

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    const perRequest = logged.find((entry) => entry.msg === 'admission request');
    assert.equal(perRequest?.level, 20, 'one debug line per request');
    assert.equal(perRequest?.outcome, 'patched');
    assert.ok(!JSON.stringify(logged).includes('nginx:1.27'), 'no Pod body in the logs');
    assert.ok(logged.some((entry) => entry.msg === 'shutting down: finishing in-flight requests'));
  } finally {
    child.kill('SIGKILL');
    await rm(certDir, { recursive: true, force: true });
  }
});

test("a certificate directory with half a pair is the user's: left alone, and start-up says what is missing", async () => {
  const certDir = await mkdtemp(join(tmpdir(), 'topogate-serve-'));
  try {
    await writeFile(join(certDir, 'tls.crt'), 'mine\n');
    await assert.rejects(
      startTopogate(config(['--cert-dir', certDir, '--port', '0']), {
        log: pino({ level: 'silent' }),
        registry: new Registry(),
      }),
      {
        message: `${certDir} holds tls.crt without tls.key: give both, or neither to have them made`,
      },
    );
    assert.equal(await readFile(join(certDir, 'tls.crt'), 'utf8'), 'mine\n');
  } finally {
    await rm(certDir, { recursive: true, force: true });
  }
});

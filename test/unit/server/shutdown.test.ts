// SIGTERM to a real `topogate serve` process under load, with a connection
// that never handshakes held open: the process exits 0 before its grace ends,
// every request that reached it is answered whole (the last ones with
// Connection: close), and none is cut mid-answer.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(packageRoot, 'bin', 'topogate.ts');
// Far longer than a drain takes even on a loaded machine; a server that waited on the half-open connection
// would still take all of it.
const graceSeconds = 30;

type Outcome = 'answered' | 'answered-closing' | 'refused' | 'reset-idle' | 'cut';

/** One review; a failure is sorted by whether the request could have been in flight when it failed. */
function post(url: string, ca: string, agent: Agent, body: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      new URL('/mutate', url),
      { method: 'POST', ca, agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers.connection === 'close' ? 'answered-closing' : 'answered'));
        res.on('error', () => resolve('cut'));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') resolve('refused');
      // A kept-alive connection closed as idle just as this was sent: retryable, as Node's docs say.
      else if (req.reusedSocket && error.code === 'ECONNRESET') resolve('reset-idle');
      else resolve('cut');
    });
    req.end(body);
  });
}

test('SIGTERM under load with a half-open connection: exit 0 within the grace, no request cut', async () => {
  const certDir = await mkdtemp(join(tmpdir(), 'topogate-shutdown-'));
  const child = spawn(
    process.execPath,
    [
      bin,
      'serve',
      '--port',
      '0',
      '--cert-dir',
      certDir,
      '--budget-ms',
      '10000',
      '--shutdown-grace',
      `${graceSeconds}s`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const entry = JSON.parse(line);
        if (entry.msg === 'webhook serving') resolve(entry.url);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
    const body = await readFile(join(packageRoot, 'examples', 'admission', 'pod-create-web.json'), 'utf8');
    const silent = connect({ host: '127.0.0.1', port: Number(new URL(url).port), allowHalfOpen: true });
    silent.on('error', () => {});

    const outcomes: Outcome[] = [];
    let stopping = false;
    const looper = async () => {
      // Bounded: each looper stops at its first failure or closing answer after SIGTERM, or after 2,000 requests.
      for (let sent = 0; sent < 2_000; sent++) {
        const outcome = await post(url, ca, agent, body);
        outcomes.push(outcome);
        if (stopping && outcome !== 'answered') return;
      }
    };
    const loopers = Array.from({ length: 8 }, looper);
    while (outcomes.length < 200) await new Promise((done) => setTimeout(done, 10));

    const signalled = performance.now();
    stopping = true;
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    const exitedAfterMs = performance.now() - signalled;
    await Promise.all(loopers);

    assert.equal(code, 0);
    assert.ok(exitedAfterMs < graceSeconds * 1000, `exited ${Math.round(exitedAfterMs)} ms after SIGTERM`);
    assert.equal(outcomes.filter((outcome) => outcome === 'cut').length, 0, `outcomes: ${outcomes.join(' ')}`);
    assert.ok(outcomes.filter((outcome) => outcome === 'answered').length >= 200);
    silent.destroy();
  } finally {
    agent.destroy();
    child.kill('SIGKILL');
    await rm(certDir, { recursive: true, force: true });
  }
});

// The soak: a real `topogate serve` (the demo cluster) answers a steady
// stream of legitimate reviews while an attacker on loopback (a process of its
// own, bench/soak-attacker.ts) holds what it can:
// connections that never send a ClientHello, TLS connections left idle before
// or after one request (as a pooling client leaves them), and requests whose
// body never ends, reconnecting as the server drops them. Reported: the
// legitimate reviews' latency and failures before, during and after; serve's
// descriptors and RSS; and whether its memory returns once the flood is over
// (RSS 80 s after it against the baseline before it). Bounded in connections
// and time.
//
//   node bench/soak.ts [--seconds 20] [--half-open 1000] [--idle 900] [--kept-alive 2000] [--slow 100]
//                      [--out bench/results]

import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { quantileSorted } from '../src/stats/order.ts';
import { metricSum } from './metrics.ts';
import { withSection } from './sections.ts';
import type { AttackTarget } from './soak-attacker.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    'half-open': { type: 'string', default: '1000' },
    idle: { type: 'string', default: '900' },
    'kept-alive': { type: 'string', default: '2000' },
    slow: { type: 'string', default: '100' },
    out: { type: 'string', default: join(root, 'bench', 'results') },
  },
});
const floodSeconds = Number(values.seconds);
const target: AttackTarget = {
  halfOpen: Number(values['half-open']),
  idle: Number(values.idle),
  keptAlive: Number(values['kept-alive']),
  slow: Number(values.slow),
};
/** When the memory is read after the flood, and how far above its baseline RSS may then be for "memory returns". */
const settleSeconds = [30, 80] as const;
const returnedRatio = 1.25;

interface Phase {
  readonly name: string;
  readonly answered: number;
  readonly failed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly peakFds: number;
  readonly peakRssMb: number;
}

const heading = '## 8. Soak: a connection flood beside real traffic';

async function processFigures(pid: number): Promise<{ fds: number; rssMb: number }> {
  const [fds, status] = await Promise.all([readdir(`/proc/${pid}/fd`), readFile(`/proc/${pid}/status`, 'utf8')]);
  const rssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
  return { fds: fds.length, rssMb: rssKb / 1024 };
}

/** V8's heap in use, from serve's /metrics: what the JavaScript side holds, beside RSS. */
function heapUsedMb(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(new URL('/metrics', url), { ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(metricSum(text, 'nodejs_heap_size_used_bytes') / 2 ** 20));
    })
      .on('error', reject)
      .end();
  });
}

interface Memory {
  readonly fds: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
}

async function memory(pid: number, url: string, ca: string): Promise<Memory> {
  const [{ fds, rssMb }, heap] = await Promise.all([processFigures(pid), heapUsedMb(url, ca)]);
  return { fds, rssMb: Math.round(rssMb), heapUsedMb: Math.round(heap) };
}

function review(url: string, ca: string, agent: Agent, body: string): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      new URL('/mutate', url),
      { method: 'POST', ca, agent, headers: { 'content-type': 'application/json' }, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : undefined));
      },
    );
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end(body);
  });
}

async function phase(
  name: string,
  seconds: number,
  send: () => Promise<number | undefined>,
  pid: number,
): Promise<Phase> {
  const latencies: number[] = [];
  let failed = 0;
  let peakFds = 0;
  let peakRssMb = 0;
  const until = performance.now() + seconds * 1000;
  const sampler = setInterval(() => {
    void processFigures(pid).then(({ fds, rssMb }) => {
      peakFds = Math.max(peakFds, fds);
      peakRssMb = Math.max(peakRssMb, rssMb);
    });
  }, 250);
  while (performance.now() < until) {
    const ms = await send();
    if (ms === undefined) failed++;
    else latencies.push(ms);
    // A steady stream, not a load test: about 200 reviews a second, as a busy cluster's API servers send.
    await new Promise((done) => setTimeout(done, 5));
  }
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  return {
    name,
    answered: latencies.length,
    failed,
    p50Ms: quantileSorted(latencies, 0.5),
    p99Ms: quantileSorted(latencies, 0.99),
    maxMs: latencies.at(-1) ?? 0,
    peakFds,
    peakRssMb,
  };
}

const certDir = await mkdtemp(join(tmpdir(), 'topogate-soak-'));
/** serve as the image and the Deployments run it, unless the caller's environment says otherwise. */
const arenas = process.env['MALLOC_ARENA_MAX'] ?? '2';
const child = spawn(
  process.execPath,
  [join(root, 'bin', 'topogate.ts'), 'serve', '--port', '0', '--cert-dir', certDir],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, MALLOC_ARENA_MAX: arenas },
  },
);
/** How long each of serve's trims after a flood stalled its loop (src/server/trim.ts logs them). */
const trimMs: number[] = [];
try {
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string; ms?: number };
      if (entry.msg === 'webhook serving' && entry.url) resolve(entry.url);
      if (entry.msg?.includes('freed memory given back') && entry.ms !== undefined) trimMs.push(entry.ms);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const pid = child.pid!;
  const port = Number(new URL(url).port);
  const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
  const body = await readFile(join(root, 'examples', 'admission', 'pod-create-web.json'), 'utf8');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = () => review(url, ca, agent, body);
  const before = await phase('before', 5, send, pid);
  const baseline = await memory(pid, url, ca);

  const attacker = fork(join(root, 'bench', 'soak-attacker.ts'), [
    JSON.stringify({ port, caFile: join(certDir, 'ca.crt'), target }),
  ]);
  const during = await phase('during the flood', floodSeconds, send, pid);
  attacker.send('stop');
  const [{ opened }] = (await once(attacker, 'message')) as [{ opened: number }];
  const stopped = performance.now();
  await new Promise((done) => setTimeout(done, 3_000));
  const after = await phase('after', 5, send, pid);
  const settled = await memory(pid, url, ca);
  agent.destroy();
  const later: (Memory & { seconds: number })[] = [];
  for (const seconds of settleSeconds) {
    await new Promise((done) => setTimeout(done, stopped + seconds * 1000 - performance.now()));
    later.push({ seconds, ...(await memory(pid, url, ca)) });
  }

  const phases = [before, during, after];
  const peakRssMb = Math.round(Math.max(...phases.map((p) => p.peakRssMb)));
  const last = later.at(-1)!;
  const ratio = last.rssMb / baseline.rssMb;
  const verdict = `${ratio <= returnedRatio ? 'memory returns' : 'memory is held'}: RSS ${last.seconds} s after the flood is ${ratio.toFixed(2)}× its baseline (returned: at most ${returnedRatio}×)`;
  const report = {
    floodSeconds,
    attack: { ...target, connectionsOpened: opened },
    phases,
    memory: { baseline, peakRssMb, afterFlood: [{ seconds: 8, ...settled }, ...later] },
    verdict: { returns: ratio <= returnedRatio, ratio, limit: returnedRatio },
    trimMs,
  };
  const rows = phases.map(
    (p) =>
      `| ${p.name} | ${p.answered} | ${p.failed} | ${p.p50Ms.toFixed(2)} | ${p.p99Ms.toFixed(2)} | ${p.maxMs.toFixed(1)} | ${p.peakFds} | ${Math.round(p.peakRssMb)} |`,
  );
  const flags = process.argv.slice(2);
  const command = ['npm run bench:soak', ...(flags.length > 0 ? ['--', ...flags] : [])].join(' ');
  const markdown = [
    heading,
    '',
    `\`${command}\` (bench/soak.ts; serve with MALLOC_ARENA_MAX=${arenas}), ${new Date().toISOString().slice(0, 16)}Z, on ${cpus().length} cores with a load average of ${loadavg()[0]?.toFixed(1)} when it ended. Flood of ${floodSeconds} s on loopback: ${target.halfOpen} connections that never send a ClientHello, ${target.idle} idle TLS connections, ${target.keptAlive} TLS connections left idle after one request and ${target.slow} requests whose body never ends, each replaced as the server drops it (${opened} connections opened in all), beside one client sending reviews one after another on a kept-alive connection.`,
    '',
    '| phase | reviews answered | failed | p50 ms | p99 ms | max ms | peak descriptors | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| serve | descriptors | RSS MB | V8 heap used MB |',
    '|---|---|---|---|',
    `| before the flood | ${baseline.fds} | ${baseline.rssMb} | ${baseline.heapUsedMb} |`,
    `| peak | ${Math.max(...phases.map((p) => p.peakFds))} | ${peakRssMb} | |`,
    ...[{ seconds: 8, ...settled }, ...later].map(
      (m) => `| ${m.seconds} s after it | ${m.fds} | ${m.rssMb} | ${m.heapUsedMb} |`,
    ),
    '',
    `Verdict: ${verdict}. serve gave freed memory back ${trimMs.length} time(s)${trimMs.length > 0 ? `, its loop stalled ${trimMs.join(', ')} ms` : ''}.`,
    '',
  ].join('\n');
  await writeFile(join(values.out, 'soak.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(values.out, 'soak.md'), markdown);
  const benchmarks = join(root, 'BENCHMARKS.md');
  await writeFile(benchmarks, withSection(await readFile(benchmarks, 'utf8'), heading, markdown));
  process.stdout.write(markdown);
} finally {
  child.kill('SIGTERM');
  await rm(certDir, { recursive: true, force: true });
}

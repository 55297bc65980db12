// The soak: a real `topogate serve` (the demo cluster) answers a steady
// stream of legitimate reviews while an attacker on loopback holds what it can:
// connections that never send a ClientHello, TLS connections left idle, and
// requests whose body never ends, reconnecting as the server drops them.
// Reported: the legitimate reviews' latency and failures before, during and
// after, and serve's descriptors and RSS. Bounded in connections and time.
//
//   node bench/soak.ts [--seconds 20] [--half-open 3000] [--idle 1000] [--slow 100] [--out bench/results]

import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { connect as tcpConnect, type Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    'half-open': { type: 'string', default: '3000' },
    idle: { type: 'string', default: '1000' },
    slow: { type: 'string', default: '100' },
    out: { type: 'string', default: join(root, 'bench', 'results') },
  },
});
const floodSeconds = Number(values.seconds);
const target = { halfOpen: Number(values['half-open']), idle: Number(values.idle), slow: Number(values.slow) };
/** The attacker opens at most this many connections in all, however fast the server drops them. */
const maxAttackConnections = 50_000;

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

const heading = '## Soak: a connection flood beside real traffic';

/** BENCHMARKS.md with this section in place of its last run's, or at the end. */
async function replaceSection(file: string, section: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  const start = text.indexOf(heading);
  if (start === -1) return writeFile(file, `${text.trimEnd()}\n\n${section}`);
  const next = text.indexOf('\n## ', start + heading.length);
  await writeFile(file, `${text.slice(0, start)}${section}${next === -1 ? '' : text.slice(next + 1)}`);
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);

async function processFigures(pid: number): Promise<{ fds: number; rssMb: number }> {
  const [fds, status] = await Promise.all([readdir(`/proc/${pid}/fd`), readFile(`/proc/${pid}/status`, 'utf8')]);
  const rssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
  return { fds: fds.length, rssMb: rssKb / 1024 };
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
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: latencies.at(-1) ?? 0,
    peakFds,
    peakRssMb,
  };
}

/** Keeps `count` sockets of one kind open, replacing each the server drops, within the attack's bound. */
function hold(count: number, open: () => Socket, budget: { opened: number }): { stop(): void } {
  const sockets = new Set<Socket>();
  let stopped = false;
  const one = () => {
    if (stopped || budget.opened >= maxAttackConnections) return;
    budget.opened++;
    const socket = open();
    sockets.add(socket);
    socket.on('error', () => {});
    // A half-open socket sees the server's FIN as 'end' only; the attacker then lets go and reconnects.
    socket.once('end', () => socket.destroy());
    socket.once('close', () => {
      sockets.delete(socket);
      setTimeout(one, 50);
    });
  };
  for (let i = 0; i < count; i++) one();
  return {
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

const certDir = await mkdtemp(join(tmpdir(), 'topogate-soak-'));
const child = spawn(
  process.execPath,
  [join(root, 'bin', 'topogate.ts'), 'serve', '--port', '0', '--cert-dir', certDir],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
try {
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'webhook serving' && entry.url) resolve(entry.url);
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

  const budget = { opened: 0 };
  const tls = () => tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
  const attack = [
    hold(target.halfOpen, () => tcpConnect({ host: '127.0.0.1', port, allowHalfOpen: true }), budget),
    hold(target.idle, tls, budget),
    hold(
      target.slow,
      () => {
        const socket = tls();
        socket.once('secureConnect', () =>
          socket.write(
            'POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9000\r\n\r\n{',
          ),
        );
        return socket;
      },
      budget,
    ),
  ];
  const during = await phase('during the flood', floodSeconds, send, pid);
  for (const part of attack) part.stop();
  await new Promise((done) => setTimeout(done, 3_000));
  const after = await phase('after', 5, send, pid);
  const settled = await processFigures(pid);
  agent.destroy();

  const phases = [before, during, after];
  const report = {
    floodSeconds,
    attack: { ...target, connectionsOpened: budget.opened },
    phases,
    afterFlood: { fds: settled.fds, rssMb: Math.round(settled.rssMb) },
  };
  const rows = phases.map(
    (p) =>
      `| ${p.name} | ${p.answered} | ${p.failed} | ${p.p50Ms.toFixed(2)} | ${p.p99Ms.toFixed(2)} | ${p.maxMs.toFixed(1)} | ${p.peakFds} | ${Math.round(p.peakRssMb)} |`,
  );
  const markdown = [
    heading,
    '',
    `\`npm run bench:soak\` (bench/soak.ts), ${new Date().toISOString().slice(0, 16)}Z, on ${cpus().length} cores with a load average of ${loadavg()[0]?.toFixed(1)} when it ended. Flood of ${floodSeconds} s on loopback: ${target.halfOpen} connections that never send a ClientHello, ${target.idle} idle TLS connections and ${target.slow} requests whose body never ends, each replaced as the server drops it (${budget.opened} connections opened in all), beside one client sending reviews one after another on a kept-alive connection.`,
    '',
    '| phase | reviews answered | failed | p50 ms | p99 ms | max ms | peak descriptors | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `3 s after the flood stopped and 5 s of reviews later: ${settled.fds} descriptors, ${Math.round(settled.rssMb)} MB RSS.`,
    '',
  ].join('\n');
  await writeFile(join(values.out, 'soak.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(values.out, 'soak.md'), markdown);
  await replaceSection(join(root, 'BENCHMARKS.md'), markdown);
  process.stdout.write(markdown);
} finally {
  child.kill('SIGTERM');
  await rm(certDir, { recursive: true, force: true });
}

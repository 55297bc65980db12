// The cost of `topogate probe`, on loopback: CPU and bytes per agent per
// minute at 10, 100 and 1,000 simulated peers, and what the Lease holder's
// gathers cost at that many agents, with the API writes it makes.
//
//   node bench/probe.ts [--seconds 20] [--peers 10,100,1000] [--interval 2s]
//
// Writes bench/results/probe.md and puts it at the end of BENCHMARKS.md
// (where `npm run bench` keeps it from then on).
//
// Three processes per size: the peers (N real listeners from
// src/probe/shell/listener.ts, each serving probes and a /summary of three
// zones), one agent (the real Prober, at the default 8 peers per round), and
// one writer (the real Writer gathering N summaries every 5 s). CPU is the
// process's own user + system time; bytes are /proc/self/io rchar + wchar:
// what the process read and wrote through syscalls (socket payload; TCP/IP
// headers not included). Both are measured after a warm-up and scaled to a
// minute.

import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';

import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Registry } from 'prom-client';
import { add, bucketOf } from '../src/probe/histogram.ts';
import { intervalBounds } from '../src/probe/interval.ts';
import type { Peer } from '../src/probe/peers.ts';
import { createProbeMetrics } from '../src/probe/shell/metrics.ts';
import { listen } from '../src/probe/shell/listener.ts';
import { Prober } from '../src/probe/shell/prober.ts';
import type { StatusWriter } from '../src/probe/shell/status-writer.ts';
import { Writer } from '../src/probe/shell/writer.ts';
import { encodeSummary } from '../src/probe/summary.ts';
import { DEFAULT_WRITE_POLICY } from '../src/probe/write-policy.ts';
import { parseDuration } from '../src/server/duration.ts';
import { withSection } from './sections.ts';

const ZONES = ['zone-0', 'zone-1', 'zone-2'];
const HEADING = '## 7. `topogate probe`: cost per agent and for the writer';
const WARMUP_MS = 5_000;

interface Cost {
  readonly cpuMsPerMinute: number;
  readonly bytesPerMinute: number;
  readonly events: number;
}

const role = process.argv[2];
if (role === 'peers') await peersProcess(Number(process.argv[3]));
else if (role === 'agent' || role === 'writer') await measuredProcess(role);
else await main();

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '20' },
      peers: { type: 'string', default: '10,100,1000' },
      interval: { type: 'string', default: '2s' },
    },
  });
  const windowMs = Number(values.seconds) * 1000;
  const intervalMs = parseDuration(values.interval)!;
  const rows: string[] = [];
  for (const count of values.peers.split(',').map(Number)) {
    const peers = fork(import.meta.filename, ['peers', String(count)], { stdio: 'inherit' });
    const ports = await new Promise<number[]>((resolve) => peers.once('message', (m) => resolve(m as number[])));
    const [agent, writer] = await Promise.all([
      measure('agent', ports, windowMs, intervalMs),
      measure('writer', ports, windowMs, intervalMs),
    ]);
    peers.kill();
    rows.push(
      `| ${count} | ${agent.cpuMsPerMinute.toFixed(0)} | ${kb(agent.bytesPerMinute)} | ${agent.events} | ` +
        `${writer.cpuMsPerMinute.toFixed(0)} | ${kb(writer.bytesPerMinute)} | ${writer.events} |`,
    );
    console.error(`${count} peers: agent ${JSON.stringify(agent)}, writer ${JSON.stringify(writer)}`);
  }
  const section = [
    HEADING,
    '',
    `\`node bench/probe.ts --seconds ${values.seconds} --interval ${values.interval}\`, ${new Date().toISOString()}, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} on ${cpus().length} cores. One agent at the default 8 peers per round, and one writer ` +
      'gathering every simulated agent’s summary every 5 s (docs/probe.md). CPU is the process’s own time, bytes ' +
      `the socket payload it read and wrote (/proc/self/io), both scaled from a ${values.seconds} s window to a minute.`,
    '',
    '| peers | agent CPU ms/min | agent KB/min | probes in window | writer CPU ms/min | writer KB/min | status writes in window |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
  console.log(section);
  await writeFile(new URL('results/probe.md', import.meta.url), section);
  const report = new URL('../BENCHMARKS.md', import.meta.url);
  const text = await readFile(report, 'utf8');
  // Replace this section where it is (others, like the soak's, may follow it), or append it.
  await writeFile(report, withSection(text, HEADING, section));
}

function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

function measure(which: 'agent' | 'writer', ports: number[], windowMs: number, intervalMs: number): Promise<Cost> {
  const child = fork(import.meta.filename, [which], { stdio: 'inherit' });
  child.send({ ports, windowMs, intervalMs });
  return new Promise((resolve) =>
    child.once('message', (cost) => {
      child.kill();
      resolve(cost as Cost);
    }),
  );
}

/** N listeners; each answers probes and serves a summary like an agent's (three zones, a spread of buckets). */
async function peersProcess(count: number): Promise<void> {
  const buckets = new Map<number, number>();
  for (let i = 0; i < 200; i++) add(buckets, bucketOf(0.1 + (i % 40) * 0.01));
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const zone = ZONES[i % ZONES.length]!;
    const summary = encodeSummary({ node: `node-${i}`, zone, zones: ZONES.map((z) => ({ zone: z, buckets })) });
    const listener = await listen('127.0.0.1', 0, (_request, response) => response.end(summary));
    ports.push(listener.port);
  }
  process.send!(ports);
  await new Promise(() => {});
}

async function measuredProcess(which: 'agent' | 'writer'): Promise<void> {
  const { ports, windowMs, intervalMs } = await new Promise<{ ports: number[]; windowMs: number; intervalMs: number }>(
    (resolve) => process.once('message', (m) => resolve(m as never)),
  );
  const peers: Peer[] = ports.map((port, i) => ({
    name: `probe-${i}`,
    node: `node-${i}`,
    ip: '127.0.0.1',
    port,
    zone: ZONES[i % ZONES.length]!,
  }));
  const log = pino({ level: 'warn' });
  const metrics = createProbeMetrics(new Registry());
  let events = 0;
  let stop: () => void;
  if (which === 'agent') {
    const prober = new Prober({
      localAddress: undefined,
      bounds: intervalBounds(intervalMs),
      budget: 8,
      timeoutMs: 1000,
      view: () => ({ peers, zone: 'zone-0' }),
      node: 'bench',
      reportPeersWithinMs: 10_000,
      metrics,
      log,
    });
    prober.start();
    stop = () => prober.stop();
  } else {
    const status = { write: async () => void (events += 1) } as unknown as StatusWriter;
    const writer = new Writer({
      policy: DEFAULT_WRITE_POLICY,
      gatherTimeoutMs: 2000,
      own: () => undefined,
      peers: () => peers,
      status,
      metrics,
      log,
    });
    writer.lead();
    stop = () => writer.follow();
  }
  await sleep(WARMUP_MS);
  const cpu = process.cpuUsage();
  const io = procIo();
  const probesBefore = await probes(metrics);
  await sleep(windowMs);
  const used = process.cpuUsage(cpu);
  const moved = procIo() - io;
  if (which === 'agent') events = (await probes(metrics)) - probesBefore;
  stop();
  const perMinute = 60_000 / windowMs;
  process.send!({
    cpuMsPerMinute: ((used.user + used.system) / 1000) * perMinute,
    bytesPerMinute: moved * perMinute,
    events,
  } satisfies Cost);
}

async function probes(metrics: ReturnType<typeof createProbeMetrics>): Promise<number> {
  const rtt = await metrics.rtt.get();
  const lost = await metrics.lost.get();
  const count = rtt.values.filter((v) => v.metricName?.endsWith('_count')).reduce((s, v) => s + v.value, 0);
  return count + lost.values.reduce((s, v) => s + v.value, 0);
}

function procIo(): number {
  const text = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return field('rchar') + field('wchar');
}

// The probe fleet at scale, on loopback: the API requests the whole fleet
// makes, and what the Lease holder's gathers cost it, at 1,000 and 5,000
// simulated nodes.
//
//   node bench/probe-fleet.ts [--seconds 30] [--nodes 1000,5000]
//
// Writes bench/results/probe-fleet.md and puts it in BENCHMARKS.md.
//
// API: a fake API server counts every request. The fleet's Lease traffic is
// the real code: each agent's candidacy check (candidateNodes over the
// campaign pool of N probe Pods and Nodes, src/probe/candidates.ts) decides
// who campaigns, and those run the real elect() of src/kube-client/lease.ts against
// the fake server. The check is deterministic and local, so it runs once for
// the fleet (and is timed, as one agent's cost per look); the same fleet with
// every agent campaigning (the old way) is run at the first size beside it.
//
// Writer: N real listeners in one process serve summaries as agents do (three
// zones' histograms and the node pairs of two write periods); one real Writer
// gathers them every 5 s, keeping the node pairs. CPU is its process's own
// time scaled to a minute; memory the RSS its gathers added (from before the
// first to after the window), its RSS then (the bench's process loads the
// Kubernetes client, as an agent does) and its heap after a collection.

import { fork } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Registry } from 'prom-client';
import { elect, type LeaderElection } from '../src/kube-client/lease.ts';
import { campaignPool, candidateNodes } from '../src/probe/candidates.ts';
import { add, bucketOf } from '../src/probe/histogram.ts';
import type { Peer } from '../src/probe/peers.ts';
import { LEASE_NAME } from '../src/probe/shell/agent.ts';
import { listen } from '../src/probe/shell/listener.ts';
import { createProbeMetrics } from '../src/probe/shell/metrics.ts';
import type { StatusWriter } from '../src/probe/shell/status-writer.ts';
import { Writer } from '../src/probe/shell/writer.ts';
import { encodeSummary } from '../src/probe/summary.ts';
import { DEFAULT_WRITE_POLICY } from '../src/probe/write-policy.ts';
import { loopbackKubeConfig } from '../test/unit/sources/loopback-kubeconfig.ts';
import { withSection } from './sections.ts';

const ZONES = ['zone-0', 'zone-1', 'zone-2'];
const HEADING = '## 12. The probe fleet at 1,000 and 5,000 nodes: API requests and the writer';
/** The agent's defaults: --lease-duration 15s, --renew 2s; candidates look every lease / 3. */
const LEASE_MS = 15_000;
const RENEW_MS = 2_000;
const LOOK_MS = Math.max(RENEW_MS, LEASE_MS / 3);
/** Node pairs in one summary: 8 probes a round, a round every 2-4 s, two 5 s write periods. */
const PEERS_PER_SUMMARY = 32;
const WARMUP_MS = 5_000;
/** Past the start, when every campaigner creates or reads the Lease at once: three looks. */
const API_WARMUP_MS = 3 * LOOK_MS;

const role = process.argv[2];
if (role === 'peers') await peersProcess(Number(process.argv[3]));
else if (role === 'writer') await writerProcess();
else await main();

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '30' }, nodes: { type: 'string', default: '1000,5000' } },
  });
  const windowMs = Number(values.seconds) * 1000;
  const sizes = values.nodes.split(',').map(Number);
  const rows: string[] = [];
  for (const [i, nodes] of sizes.entries()) {
    const api = await apiTraffic(nodes, windowMs, 'candidates');
    const old = i === 0 ? await apiTraffic(nodes, windowMs, 'everyone') : undefined;
    const writer = await writerCost(nodes, windowMs);
    console.error(JSON.stringify({ nodes, api, old, writer }));
    rows.push(
      `| ${nodes.toLocaleString('en')} | ${api.campaigning} | ${api.perSecond.toFixed(2)} (${api.byVerb}) | ` +
        `${old ? `${old.perSecond.toFixed(1)} (${old.campaigning} campaigning)` : '—'} | ${api.lookMs.toFixed(1)} ms | ` +
        `${(writer.cpuMsPerMinute / 1000).toFixed(1)} s/min | +${writer.rssGainMb.toFixed(0)} MB (RSS ${writer.rssMb.toFixed(0)}, heap ${writer.heapMb.toFixed(0)}) | ` +
        `${writer.gatherMs.toFixed(0)} ms | ${writer.pairs.toLocaleString('en')} |`,
    );
  }
  const section = [
    HEADING,
    '',
    `\`node bench/probe-fleet.ts --seconds ${values.seconds} --nodes ${values.nodes}\`, ${new Date().toISOString()}, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} on ${cpus().length} cores; ${values.seconds} s windows after a ${WARMUP_MS / 1000} s warm-up, ` +
      'the agents’ defaults (Lease 15 s, renew 2 s, write period 5 s). **API requests/s** are every request the ' +
      'fleet’s Lease traffic made to a fake API server (the real candidacy and election code); **every agent ' +
      'campaigning** is the same fleet the old way. **Look** is one agent’s local candidacy check (no API request), ' +
      'made every lease / 3. The **writer** gathers N real listeners’ summaries (three zones and ' +
      `${PEERS_PER_SUMMARY} node pairs each) every 5 s and keeps the node pairs (docs/probe.md).`,
    '',
    '| nodes | campaigning | fleet API requests/s | every agent campaigning | look | writer CPU | writer memory: gathers’ RSS (RSS, heap) | gather | node pairs held |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    'Besides these, each agent keeps two watches (its namespace’s probe Pods, and the Nodes): a list and a watch ' +
      'at start, the watch renewed when the API server ends it (every 30-60 min with the default ' +
      '`--min-request-timeout`), so 2 × N long-running requests and about 2 × N / 2,700 new ones a second ' +
      '(0.7/s at 1,000 nodes, 3.7/s at 5,000), as every DaemonSet that watches has.',
    '',
  ].join('\n');
  console.log(section);
  await writeFile(new URL('results/probe-fleet.md', import.meta.url), section);
  const report = new URL('../BENCHMARKS.md', import.meta.url);
  await writeFile(report, withSection(await readFile(report, 'utf8'), HEADING, section));
}

interface ApiTraffic {
  readonly campaigning: number;
  readonly perSecond: number;
  readonly byVerb: string;
  readonly lookMs: number;
}

/** N agents' Lease traffic against a fake API server, for `windowMs` after a warm-up. */
async function apiTraffic(count: number, windowMs: number, who: 'candidates' | 'everyone'): Promise<ApiTraffic> {
  const nodes = Array.from({ length: count }, (_, i) => `node-${i}`);
  const pods = nodes.map((node, i) => ({
    metadata: { name: `topogate-probe-${i}` },
    spec: { nodeName: node, containers: [{ name: 'probe', ports: [{ name: 'probe', containerPort: 9471 }] }] },
    status: { phase: 'Running', podIP: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, conditions: [] },
  }));
  const nodeObjects = nodes.map((name) => ({ metadata: { name }, status: { conditions: [] } }));
  // One agent's look, timed warm (the median of 21).
  const looks: number[] = [];
  let candidates: ReadonlySet<string> = new Set();
  for (let i = 0; i < 21; i++) {
    const looked = performance.now();
    candidates = candidateNodes(LEASE_NAME, campaignPool(nodes[i]!, pods, nodeObjects));
    looks.push(performance.now() - looked);
  }
  const lookMs = looks.sort((a, b) => a - b)[10]!;
  const api = await fakeLeaseServer();
  const log = pino({ level: 'silent' });
  const campaigning = who === 'candidates' ? [...candidates] : nodes;
  const elections: LeaderElection[] = campaigning.map((node) =>
    elect({
      config: api.config,
      namespace: 'topogate',
      name: LEASE_NAME,
      log,
      identity: `${node}_bench`,
      leaseDurationMs: LEASE_MS,
      retryMs: RENEW_MS,
      candidateRetryMs: LOOK_MS,
      onStartedLeading: () => {},
      onStoppedLeading: () => {},
    }),
  );
  await sleep(API_WARMUP_MS);
  const before = new Map(api.counts);
  await sleep(windowMs);
  const counted = [...api.counts].map(([verb, n]) => [verb, n - (before.get(verb) ?? 0)] as const);
  await Promise.all(elections.map((election) => election.stop()));
  await api.close();
  const total = counted.reduce((sum, [, n]) => sum + n, 0);
  const perSecond = (n: number) => n / (windowMs / 1000);
  return {
    campaigning: campaigning.length,
    perSecond: perSecond(total),
    byVerb: counted
      .filter(([, n]) => n > 0)
      .map(([verb, n]) => `${verb} ${perSecond(n).toFixed(2)}`)
      .join(', '),
    lookMs,
  };
}

/** A Lease endpoint with resourceVersion checks, counting requests by verb. */
async function fakeLeaseServer() {
  const counts = new Map<string, number>();
  let lease: { metadata: Record<string, unknown>; spec: unknown } | undefined;
  let version = 0;
  const send = (response: ServerResponse, status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer(async (request: IncomingMessage, response) => {
    const verb = request.method === 'GET' ? 'GET' : request.method === 'POST' ? 'create' : 'update';
    counts.set(verb, (counts.get(verb) ?? 0) + 1);
    let text = '';
    for await (const chunk of request) text += chunk;
    if (request.method === 'GET') return lease ? send(response, 200, lease) : send(response, 404, notFound());
    const body = JSON.parse(text) as { metadata: Record<string, unknown>; spec: unknown };
    if (request.method === 'POST' && lease) return send(response, 409, { kind: 'Status', code: 409 });
    if (request.method === 'PUT' && body.metadata.resourceVersion !== lease?.metadata.resourceVersion)
      return send(response, 409, { kind: 'Status', code: 409 });
    lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(++version) } };
    send(response, request.method === 'POST' ? 201 : 200, lease);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = loopbackKubeConfig(server);
  return {
    config,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function notFound() {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 };
}

interface WriterCost {
  readonly cpuMsPerMinute: number;
  readonly rssMb: number;
  /** RSS gained from before the first gather to the end. */
  readonly rssGainMb: number;
  readonly heapMb: number;
  readonly gatherMs: number;
  readonly pairs: number;
}

async function writerCost(count: number, windowMs: number): Promise<WriterCost> {
  const peers = fork(import.meta.filename, ['peers', String(count)], { stdio: 'inherit' });
  const ports = await new Promise<number[]>((resolve) => peers.once('message', (m) => resolve(m as number[])));
  const writer = fork(import.meta.filename, ['writer'], { stdio: 'inherit', execArgv: ['--expose-gc'] });
  writer.send({ ports, windowMs });
  const cost = await new Promise<WriterCost>((resolve) => writer.once('message', (m) => resolve(m as WriterCost)));
  writer.kill();
  peers.kill();
  return cost;
}

/** N listeners, each serving a summary like an agent's: three zones' histograms and its recent node pairs. */
async function peersProcess(count: number): Promise<void> {
  const buckets = new Map<number, number>();
  for (let i = 0; i < 200; i++) add(buckets, bucketOf(0.1 + (i % 40) * 0.01));
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const peerNodes = Array.from({ length: PEERS_PER_SUMMARY }, (_, k) => `node-${(i + 1 + k * 97) % count}`);
    const summary = encodeSummary({
      node: `node-${i}`,
      zone: ZONES[i % ZONES.length]!,
      zones: ZONES.map((z) => ({ zone: z, buckets })),
      peers: [...new Set(peerNodes)].map((node, k) => ({ node, rttMs: 0.1 + (k % 7) * 0.05 })),
    });
    const listener = await listen('127.0.0.1', 0, (_request, response) => response.end(summary));
    ports.push(listener.port);
  }
  process.send!(ports);
  await new Promise(() => {});
}

async function writerProcess(): Promise<void> {
  const { ports, windowMs } = await new Promise<{ ports: number[]; windowMs: number }>((resolve) =>
    process.once('message', (m) => resolve(m as never)),
  );
  const peers: Peer[] = ports.map((port, i) => ({
    name: `probe-${i}`,
    node: `node-${i}`,
    ip: '127.0.0.1',
    port,
    zone: ZONES[i % ZONES.length]!,
  }));
  const gathers: number[] = [];
  let started = performance.now();
  const status = {
    write: async () => {
      gathers.push(performance.now() - started);
    },
  } as unknown as StatusWriter;
  // Every gather writes (the refresh is 0), so that each one's duration is seen.
  const writer = new Writer({
    policy: { ...DEFAULT_WRITE_POLICY, refreshMs: 0 },
    gatherTimeoutMs: 2000,
    own: () => undefined,
    peers: () => {
      started = performance.now();
      return peers;
    },
    status,
    metrics: createProbeMetrics(new Registry()),
    log: pino({ level: 'warn' }),
  });
  const rssBefore = process.memoryUsage().rss;
  writer.lead();
  await sleep(WARMUP_MS);
  const cpu = process.cpuUsage();
  await sleep(windowMs);
  const used = process.cpuUsage(cpu);
  const pairs = writer.pairs().length;
  writer.follow();
  globalThis.gc?.();
  const memory = process.memoryUsage();
  const sorted = [...gathers].sort((a, b) => a - b);
  process.send!({
    cpuMsPerMinute: ((used.user + used.system) / 1000) * (60_000 / windowMs),
    rssMb: memory.rss / 2 ** 20,
    rssGainMb: (memory.rss - rssBefore) / 2 ** 20,
    heapMb: memory.heapUsed / 2 ** 20,
    gatherMs: sorted[sorted.length >> 1] ?? NaN,
    pairs,
  } satisfies WriterCost);
}

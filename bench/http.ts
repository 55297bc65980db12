// topogate against the no-op webhook over HTTPS on 127.0.0.1: the same
// certificate, the same ~10 KB body, the same load tools, alternating
// A B A B so that drift on a shared machine hits both alike.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cluster } from './cluster.ts';
import { httpCores, pinMainThread, type Cores } from './cores.ts';
import { cpuMicros } from './cpu.ts';
import { h2load, wrk, type Capacity, type Latency, type LatencyRun, type WrkOptions } from './load.ts';
import { histogram, metricSum, slowestBucket } from './metrics.ts';
import { DECISION_ENDPOINTS, policyYaml } from './model.ts';
import { fetchLocal, startServer, waitReady, type Server } from './processes.ts';
import { median } from '../src/stats/order.ts';
import { percentiles } from './stats.ts';
import { admissionReview, trainerPod } from './workload.ts';

const run = promisify(execFile);
const TOPOGATE = fileURLToPath(new URL('../bin/topogate.ts', import.meta.url));
const NOOP = fileURLToPath(new URL('./noop-webhook.ts', import.meta.url));
const TOPOGATE_PORT = 18443;
const NOOP_PORT = 18444;
const COLD_TRIES = 20;
/**
 * Connections for the overload run: 25 with one request in flight each could
 * not offer twice the capacity; the API server opens more than its 25 idle
 * ones when its requests queue. (h2load 1.52 never exits with 200 connections
 * and a warm-up, so 100.)
 */
export const OVERLOAD_CONNECTIONS = 100;
export const BUDGET_EXCEEDED = 'topogate_budget_exceeded_total';
export const LATENCY_HISTOGRAM = 'topogate_admission_duration_seconds';
const REQUESTS = 'topogate_admission_requests_total';

export interface HttpSetup {
  readonly dir: string;
  readonly certDir: string;
  readonly topologyFile: string;
  readonly policiesDir: string;
  readonly bodyFile: string;
  readonly bodyBytes: number;
  readonly nodes: number;
  readonly policies: number;
  readonly budgetMs: number;
}

export async function prepareHttp(dir: string, nodes: number, policies: number, budgetMs: number): Promise<HttpSetup> {
  const certDir = join(dir, 'certs');
  const policiesDir = join(dir, 'policies');
  await mkdir(policiesDir, { recursive: true });
  const now = Date.now();
  const topologyFile = join(dir, 'topology.json');
  await writeFile(
    topologyFile,
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: cluster({ nodes, endpoints: DECISION_ENDPOINTS }, now) }),
  );
  await writeFile(join(policiesDir, 'policies.yaml'), policyYaml(policies));
  const body = JSON.stringify(admissionReview(trainerPod(), 'ml-training'));
  const bodyFile = join(dir, 'review.json');
  await writeFile(bodyFile, body);
  await run(process.execPath, [
    TOPOGATE,
    'certs',
    '--service',
    'topogate',
    '--namespace',
    'bench',
    '--out',
    certDir,
    '--localhost',
  ]);
  return {
    dir,
    certDir,
    topologyFile,
    policiesDir,
    bodyFile,
    bodyBytes: Buffer.byteLength(body),
    nodes,
    policies,
    budgetMs,
  };
}

export interface Side<T> {
  readonly topogate: T;
  readonly noop: T;
}

export interface SafePath {
  /** Answers admitted unchanged without deciding: the budget's safe path (stage "before_decision"). */
  readonly skipped: number;
  /** Answers decided but later than the budget (stage "decision"). */
  readonly late: number;
  /** AdmissionReviews answered, by the server's own count (warm-up requests included). */
  readonly answers: number;
}

const NO_ANSWERS: SafePath = { skipped: 0, late: 0, answers: 0 };

async function budgetCounters(): Promise<SafePath> {
  const text = await metrics(TOPOGATE_PORT);
  return {
    skipped: metricSum(text, BUDGET_EXCEEDED, 'stage="before_decision"'),
    late: metricSum(text, BUDGET_EXCEEDED, 'stage="decision"'),
    answers: metricSum(text, REQUESTS),
  };
}

export interface ServerCapacity extends Capacity {
  /** CPU time the server process spent per answered request, µs: far steadier than req/s on a shared machine. */
  readonly cpuMicrosPerRequest: number;
}

export interface CapacityRun extends Side<ServerCapacity[]> {
  readonly topogateSafePath: SafePath;
  readonly ratio: number;
  /** Median no-op CPU per request over topogate's: the throughput ratio a CPU-bound server would reach alone. */
  readonly cpuRatio: number;
}

/** Percentiles over every request of all rounds, and each round's own p99: a spell of noise shows as one round. */
export interface MergedLatency extends Latency {
  readonly roundP99s: readonly number[];
}

export interface LatencyPoint extends Side<MergedLatency> {
  readonly fraction: number;
  readonly rate: number;
  readonly topogateSafePath: SafePath;
}

export interface BudgetRun {
  readonly rate: number;
  readonly latency: Latency;
  /** The no-op under the same offered load, right after: what any webhook's answers wait here. */
  readonly noop: Latency;
  readonly safePath: SafePath;
  /** The bucket of the server's own latency histogram that holds the run's slowest answer, seconds. */
  readonly serverSlowest?: { readonly lower: number; readonly upper: number };
}

export interface HttpReport {
  /** Where the servers' main threads and the load tools ran; undefined on a machine of one core. */
  readonly cores: Cores | undefined;
  readonly bodyBytes: number;
  readonly nodes: number;
  readonly policies: number;
  /** The overload section's budget (serve's default). */
  readonly budgetMs: number;
  /** The capacity and latency runs' budget, high enough that every request is decided. */
  readonly decidingBudgetMs: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly patchOps: number;
  /** Requests a freshly started topogate answered on the safe path before its first patch. */
  readonly coldSkips: number;
  readonly keepAlive: CapacityRun;
  /** Keep-alive, every request a new Pod: topogate decides each in full. */
  readonly uniquePods: CapacityRun;
  /** Keep-alive, every request a new workload's Pod differing only in a label no policy reads. */
  readonly newWorkloads: CapacityRun;
  readonly newConnection: CapacityRun;
  readonly latency: readonly LatencyPoint[];
  readonly budget: BudgetRun;
}

export interface HttpOptions {
  readonly seconds: number;
  readonly rounds: number;
  readonly fractions: readonly number[];
}

async function metrics(port: number): Promise<string> {
  return (await fetchLocal(port, '/metrics')).body;
}

/** Runs `load` against topogate and reads its budget and request counters around it. */
async function counted<T>(load: () => Promise<T>): Promise<{ result: T; safePath: SafePath }> {
  const before = await budgetCounters();
  const result = await load();
  const after = await budgetCounters();
  return {
    result,
    safePath: {
      skipped: after.skipped - before.skipped,
      late: after.late - before.late,
      answers: after.answers - before.answers,
    },
  };
}

function addSafePath(a: SafePath, b: SafePath): SafePath {
  return { skipped: a.skipped + b.skipped, late: a.late + b.late, answers: a.answers + b.answers };
}

/**
 * The answer topogate gives the benchmark body: it must be a patch, or the
 * comparison is void. A cold server may take the budget's safe path on its
 * first requests (nothing compiled by the JIT yet), so it gets a few tries;
 * how many it needed is reported.
 */
async function checkAnswers(setup: HttpSetup, body: string): Promise<{ patchOps: number; coldSkips: number }> {
  const uid = JSON.parse(body).request.uid;
  const floor = await fetchLocal(NOOP_PORT, '/mutate?timeout=10s', body);
  if (floor.status !== 200 || JSON.parse(floor.body).response?.uid !== uid)
    throw new Error(`the no-op webhook answers wrongly: ${floor.body}`);
  let last = '';
  for (let attempt = 0; attempt < COLD_TRIES; attempt++) {
    const mutated = await fetchLocal(TOPOGATE_PORT, '/mutate?timeout=10s', body);
    const answer = JSON.parse(mutated.body).response;
    if (mutated.status === 200 && answer?.uid === uid && answer.allowed === true && answer.patchType === 'JSONPatch') {
      return {
        patchOps: (JSON.parse(Buffer.from(answer.patch, 'base64').toString('utf8')) as unknown[]).length,
        coldSkips: attempt,
      };
    }
    last = `${mutated.status} ${mutated.body.slice(0, 500)}`;
  }
  throw new Error(
    `topogate does not mutate the benchmark Pod (${setup.nodes} nodes, ${setup.policies} policies) in ${COLD_TRIES} tries: ${last}`,
  );
}

/** Capacity runs of one kind of load: a second of it on each server first, which is left out. */
async function capacity(
  setup: HttpSetup,
  options: HttpOptions,
  load: Pick<WrkOptions, 'closeEachRequest' | 'uniquePods' | 'newWorkloads' | 'cpu'>,
  pids: Side<number>,
): Promise<CapacityRun> {
  const topogate: ServerCapacity[] = [];
  const noop: ServerCapacity[] = [];
  let safePath = NO_ANSWERS;
  for (const port of [TOPOGATE_PORT, NOOP_PORT]) await wrk({ port, bodyFile: setup.bodyFile, seconds: 1, ...load });
  for (let round = 0; round < options.rounds; round++) {
    const measured = await counted(() =>
      withCpu(pids.topogate, () =>
        wrk({ port: TOPOGATE_PORT, bodyFile: setup.bodyFile, seconds: options.seconds, ...load }),
      ),
    );
    topogate.push(measured.result);
    safePath = addSafePath(safePath, measured.safePath);
    noop.push(
      await withCpu(pids.noop, () =>
        wrk({ port: NOOP_PORT, bodyFile: setup.bodyFile, seconds: options.seconds, ...load }),
      ),
    );
  }
  const ratio = median(topogate.map((c) => c.requestsPerSecond)) / median(noop.map((c) => c.requestsPerSecond));
  const cpuRatio = median(noop.map((c) => c.cpuMicrosPerRequest)) / median(topogate.map((c) => c.cpuMicrosPerRequest));
  return { topogate, noop, topogateSafePath: safePath, ratio, cpuRatio };
}

/** A wrk run and the CPU the server spent on it, per request. */
async function withCpu(pid: number, load: () => Promise<Capacity>): Promise<ServerCapacity> {
  const before = cpuMicros(pid);
  const result = await load();
  return { ...result, cpuMicrosPerRequest: (cpuMicros(pid) - before) / Math.max(1, result.requests) };
}

function merge(runs: readonly LatencyRun[]): MergedLatency {
  return {
    ...percentiles(runs.flatMap((r) => r.samples)),
    roundP99s: runs.map((r) => r.p99),
    targetRate: runs[0]!.targetRate,
    achievedRate: runs.reduce((sum, r) => sum + r.achievedRate, 0) / runs.length,
    failed: runs.reduce((sum, r) => sum + r.failed, 0),
  };
}

async function latencyAt(
  setup: HttpSetup,
  options: HttpOptions,
  fraction: number,
  rate: number,
  cpu: number | undefined,
): Promise<LatencyPoint> {
  const topogate: LatencyRun[] = [];
  const noop: LatencyRun[] = [];
  let safePath = NO_ANSWERS;
  for (let round = 0; round < options.rounds; round++) {
    const logFile = join(setup.dir, `h2load-${fraction}-${round}.tsv`);
    const measured = await counted(() =>
      h2load({ port: TOPOGATE_PORT, bodyFile: setup.bodyFile, seconds: options.seconds, rate, logFile, cpu }),
    );
    topogate.push(measured.result);
    safePath = addSafePath(safePath, measured.safePath);
    noop.push(
      await h2load({ port: NOOP_PORT, bodyFile: setup.bodyFile, seconds: options.seconds, rate, logFile, cpu }),
    );
  }
  return { fraction, rate, topogate: merge(topogate), noop: merge(noop), topogateSafePath: safePath };
}

async function budget(
  setup: HttpSetup,
  options: HttpOptions,
  rate: number,
  cpu: number | undefined,
): Promise<BudgetRun> {
  const overload = async (port: number, log: string): Promise<Latency> => {
    const { samples: _samples, ...latency } = await h2load({
      port,
      bodyFile: setup.bodyFile,
      seconds: options.seconds,
      rate,
      logFile: join(setup.dir, log),
      connections: OVERLOAD_CONNECTIONS,
      cpu,
    });
    return latency;
  };
  const before = histogram(await metrics(TOPOGATE_PORT), LATENCY_HISTOGRAM);
  const measured = await counted(() => overload(TOPOGATE_PORT, 'h2load-budget.tsv'));
  const slowest = slowestBucket(before, histogram(await metrics(TOPOGATE_PORT), LATENCY_HISTOGRAM));
  return {
    rate,
    latency: measured.result,
    noop: await overload(NOOP_PORT, 'h2load-budget-noop.tsv'),
    safePath: measured.safePath,
    ...(slowest === undefined ? {} : { serverSlowest: slowest }),
  };
}

/** `serve`'s flags for the bench's model, policies and certificate on 127.0.0.1:port. */
export function serveArgs(setup: HttpSetup, port: number): string[] {
  return [
    '--policies',
    setup.policiesDir,
    '--topology',
    setup.topologyFile,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--cert-dir',
    setup.certDir,
    '--budget-ms',
    String(setup.budgetMs),
  ];
}

export async function startTopogate(
  setup: HttpSetup,
  extraNodeArgs: readonly string[] = [],
  port = TOPOGATE_PORT,
  env: NodeJS.ProcessEnv = {},
): Promise<Server> {
  const server = startServer('topogate', port, [...extraNodeArgs, TOPOGATE, 'serve', ...serveArgs(setup, port)], env);
  await waitReady(server, '/readyz');
  return server;
}

/**
 * The budget of the capacity and latency runs: far above any answer's time, so that topogate decides every
 * request. On a machine shared with other work a request can wait in the socket queues longer than the default
 * 5 ms, and the answers then taken on the budget's safe path (admitted unchanged, undecided) would void the
 * comparison. The overload section runs with the default budget, which is what it tests.
 */
export const DECIDE_ALL_BUDGET_MS = 1000;

export async function benchHttp(
  setup: HttpSetup,
  options: HttpOptions,
  log: (line: string) => void,
): Promise<HttpReport> {
  const cores = httpCores();
  const pin = (server: Server) => {
    if (cores) pinMainThread(server.child.pid!, cores.server);
  };
  const cpu = cores?.load;
  let topogate = await startTopogate({ ...setup, budgetMs: DECIDE_ALL_BUDGET_MS });
  const noop = startServer('no-op webhook', NOOP_PORT, [NOOP, setup.certDir, String(NOOP_PORT)]);
  try {
    await waitReady(noop, '/healthz');
    pin(topogate);
    pin(noop);
    const { patchOps, coldSkips } = await checkAnswers(
      setup,
      JSON.stringify(admissionReview(trainerPod(), 'ml-training')),
    );
    log(`  both servers answer; topogate's patch has ${patchOps} operations (after ${coldSkips} cold answers)`);
    const pids = { topogate: topogate.child.pid!, noop: noop.child.pid! };
    const keepAlive = await capacity(setup, options, { cpu }, pids);
    log(`  keep-alive capacity: ratio ${keepAlive.ratio.toFixed(2)}`);
    const uniquePods = await capacity(setup, options, { uniquePods: true, cpu }, pids);
    log(`  keep-alive capacity, every Pod new: ratio ${uniquePods.ratio.toFixed(2)}`);
    const newWorkloads = await capacity(setup, options, { newWorkloads: true, cpu }, pids);
    log(`  keep-alive capacity, new workloads' Pods: ratio ${newWorkloads.ratio.toFixed(2)}`);
    const newConnection = await capacity(setup, options, { closeEachRequest: true, cpu }, pids);
    log(`  new connection per request: ratio ${newConnection.ratio.toFixed(2)}`);
    const floor = median(keepAlive.noop.map((c) => c.requestsPerSecond));
    const latency = [];
    for (const fraction of options.fractions) {
      latency.push(await latencyAt(setup, options, fraction, Math.round(floor * fraction), cpu));
      log(`  latency at ${fraction * 100} % of the no-op's capacity measured`);
    }
    await topogate.stop();
    topogate = await startTopogate(setup);
    pin(topogate);
    await wrk({ port: TOPOGATE_PORT, bodyFile: setup.bodyFile, seconds: 1, cpu });
    const overload = await budget(setup, options, Math.round(floor * 2), cpu);
    log('  budget at 2x the no-op capacity measured');
    return {
      cores,
      bodyBytes: setup.bodyBytes,
      nodes: setup.nodes,
      policies: setup.policies,
      budgetMs: setup.budgetMs,
      decidingBudgetMs: DECIDE_ALL_BUDGET_MS,
      seconds: options.seconds,
      rounds: options.rounds,
      patchOps,
      coldSkips,
      keepAlive,
      uniquePods,
      newWorkloads,
      newConnection,
      latency,
      budget: overload,
    };
  } finally {
    await Promise.all([topogate.stop(), noop.stop()]);
  }
}

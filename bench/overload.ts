// Overload stays at capacity: topogate (serve's default 5 ms budget) and the
// no-op under wrk at 16 and at 256 keep-alive connections, with and without a
// CPU-bound neighbour process on each core, in turns (A B A B). Throughput at
// 256 over throughput at 16, each side's own; every answer counted: 2xx, not
// 2xx (429 past the in-flight cap), socket errors and timeouts; and what
// topogate did with the Pods at each load (placed, deferred, admitted
// unchanged on the budget's safe path, decided late), from its own metrics.

import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:https';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { httpCores, pinMainThread } from './cores.ts';
import { BUDGET_EXCEEDED, startTopogate, type HttpSetup } from './http.ts';
import { wrk, type Capacity } from './load.ts';
import { metricSum } from './metrics.ts';
import { fetchLocal, startServer, waitReady, type Server } from './processes.ts';

const NOOP = fileURLToPath(new URL('./noop-webhook.ts', import.meta.url));
const TOPOGATE_PORT = 18_643;
const NOOP_PORT = 18_644;
export const OVERLOAD_LOADS = [16, 256] as const;
/** serve refuses a request past this many in flight (src/server/overload.ts): 429s below it are a failure. */
export const IN_FLIGHT_CAP = 128;
/** Connections closed that make a flood to serve, which then gives freed memory back (src/server/trim.ts). */
const FLOOD = 256;
/** serve's check for a flood's end runs every 10 s. */
const TRIM_CHECK_SECONDS = 11;
/** The longest wait for a load's connections to be past their handshakes; wrk runs this much longer. */
const HANDSHAKES_SECONDS = 15;
/** A neighbour spins at most this long, so that a benchmark that dies leaves nothing running. */
const NEIGHBOUR_SECONDS = 300;

export interface OverloadOptions {
  readonly seconds: number;
  readonly rounds: number;
}

export interface Outcomes {
  readonly patched: number;
  readonly allowed: number;
  readonly deferred: number;
  readonly skipped: number;
  readonly late: number;
  readonly answers: number;
}

/** A wrk run, and the 2xx answers per second the server counted once its connections were open. */
export interface SteadyRun extends Capacity {
  readonly answeredPerSecond: number;
}

export interface OverloadCell {
  readonly connections: number;
  readonly neighbours: boolean;
  readonly topogate: readonly SteadyRun[];
  readonly noop: readonly SteadyRun[];
  readonly outcomes: Outcomes;
}

export interface OverloadReport {
  readonly budgetMs: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly neighbours: number;
  readonly cells: readonly OverloadCell[];
}

async function outcomes(): Promise<Outcomes> {
  const text = (await fetchLocal(TOPOGATE_PORT, '/metrics')).body;
  const of = (outcome: string) => metricSum(text, 'topogate_admission_requests_total', `outcome="${outcome}"`);
  return {
    patched: of('patched'),
    allowed: of('allowed'),
    deferred: of('deferred'),
    skipped: of('skipped'),
    late: metricSum(text, BUDGET_EXCEEDED, 'stage="decision"'),
    answers: metricSum(text, 'topogate_admission_requests_total'),
  };
}

function minus(a: Outcomes, b: Outcomes): Outcomes {
  return {
    patched: a.patched - b.patched,
    allowed: a.allowed - b.allowed,
    deferred: a.deferred - b.deferred,
    skipped: a.skipped - b.skipped,
    late: a.late - b.late,
    answers: a.answers - b.answers,
  };
}

/** A GET on a kept-alive connection of `agent`, 30 s at most. */
function get(agent: Agent, port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, agent, timeout: 30_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from 127.0.0.1:${port}${path} in 30 s`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** One CPU-bound process per core, each spinning on its core (taskset execs node: the child is the spinner). */
function neighbours(): ChildProcess[] {
  const spin = `const end = Date.now() + ${NEIGHBOUR_SECONDS * 1000}; while (Date.now() < end);`;
  return Array.from({ length: availableParallelism() }, (_, cpu) =>
    spawn('taskset', ['-c', String(cpu), process.execPath, '-e', spin], { stdio: 'ignore' }),
  );
}

async function stopAll(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

export async function benchOverload(
  setup: HttpSetup,
  options: OverloadOptions,
  log: (line: string) => void,
): Promise<OverloadReport> {
  const cores = httpCores();
  const topogate: Server = await startTopogate(setup, [], TOPOGATE_PORT);
  const noop = startServer('no-op webhook', NOOP_PORT, [NOOP, setup.certDir, String(NOOP_PORT)]);
  const spinning: ChildProcess[] = [];
  // Counts are read on a connection opened before the load: a new one would wait behind 256 handshakes.
  const reader = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  try {
    await waitReady(noop, '/healthz');
    if (cores) for (const server of [topogate, noop]) pinMainThread(server.child.pid!, cores.server);
    const cells = new Map<string, { topogate: SteadyRun[]; noop: SteadyRun[]; outcomes: Outcomes[] }>();
    const load = (port: number, connections: number, seconds = options.seconds, stop?: AbortSignal) =>
      wrk({ port, bodyFile: setup.bodyFile, seconds, connections, cpu: cores?.load, ...(stop && { stop }) });
    const answered = async (port: number) =>
      port === NOOP_PORT
        ? Number(await get(reader, NOOP_PORT, '/answered'))
        : metricSum(await get(reader, TOPOGATE_PORT, '/metrics'), 'topogate_admission_requests_total');
    const trims = async () => metricSum(await get(reader, TOPOGATE_PORT, '/metrics'), 'topogate_memory_trims_total');
    /**
     * After FLOOD connections have closed, serve gives freed memory back (a full collection and malloc_trim, at its
     * next check within 10 s, once fewer are open): 0.1-2 s with the loop stalled, which would fall into whichever
     * run came next. Waited out before the next run instead, as an API server's traffic would meet it at most once.
     */
    const trimmed = async () => {
      const before = await trims();
      const by = performance.now() + TRIM_CHECK_SECONDS * 1000;
      while ((await trims()) === before && performance.now() < by) await sleep(250);
    };
    const secured = async (port: number) =>
      port === NOOP_PORT
        ? Number(await get(reader, NOOP_PORT, '/secured'))
        : metricSum(await get(reader, TOPOGATE_PORT, '/metrics'), 'topogate_secured_connections');
    /**
     * Answers per second once every connection is past its handshake, and a second more: wrk's own rate counts
     * from its start, and 256 TLS handshakes took 1-4 s on this machine at load 10 (a fixed 3 s warm-up left some
     * windows with no answer at all), which the API server's kept-alive connections never pay. The reader's own
     * connection is one of those counted.
     */
    let flooded = false;
    const steady = async (port: number, connections: number): Promise<SteadyRun> => {
      if (port === TOPOGATE_PORT && flooded) await trimmed();
      if (port === TOPOGATE_PORT) flooded = connections >= FLOOD;
      await answered(port);
      const stop = new AbortController();
      const running = load(port, connections, options.seconds + HANDSHAKES_SECONDS + 1, stop.signal);
      const openBy = performance.now() + (HANDSHAKES_SECONDS - 1) * 1000;
      while ((await secured(port)) <= connections && performance.now() < openBy) await sleep(100);
      await sleep(1000);
      const [from, start] = [await answered(port), performance.now()];
      await sleep(options.seconds * 1000);
      const [to, end] = [await answered(port), performance.now()];
      stop.abort();
      const run = await running;
      return { ...run, answeredPerSecond: ((to - from) / (end - start)) * 1000 };
    };
    for (const port of [TOPOGATE_PORT, NOOP_PORT]) await load(port, 16, 1);
    for (let round = 0; round < options.rounds; round++)
      for (const busy of [false, true]) {
        if (busy) spinning.push(...neighbours());
        // Each round turns the order of the loads around, so that neither always runs first.
        const loads = round % 2 === 0 ? OVERLOAD_LOADS : [...OVERLOAD_LOADS].reverse();
        for (const connections of loads) {
          const key = `${connections}/${busy}`;
          const cell = cells.get(key) ?? { topogate: [], noop: [], outcomes: [] };
          cells.set(key, cell);
          const before = await outcomes();
          cell.topogate.push(await steady(TOPOGATE_PORT, connections));
          cell.outcomes.push(minus(await outcomes(), before));
          cell.noop.push(await steady(NOOP_PORT, connections));
        }
        await stopAll(spinning.splice(0));
      }
    log(`  overload: ${options.rounds} rounds of ${OVERLOAD_LOADS.join(' and ')} connections measured`);
    return {
      budgetMs: setup.budgetMs,
      seconds: options.seconds,
      rounds: options.rounds,
      neighbours: availableParallelism(),
      cells: [...cells].map(([key, cell]) => {
        const [connections, busy] = key.split('/');
        const sum = cell.outcomes.reduce(
          (total, next) => ({
            patched: total.patched + next.patched,
            allowed: total.allowed + next.allowed,
            deferred: total.deferred + next.deferred,
            skipped: total.skipped + next.skipped,
            late: total.late + next.late,
            answers: total.answers + next.answers,
          }),
          { patched: 0, allowed: 0, deferred: 0, skipped: 0, late: 0, answers: 0 },
        );
        return {
          connections: Number(connections),
          neighbours: busy === 'true',
          topogate: cell.topogate,
          noop: cell.noop,
          outcomes: sum,
        };
      }),
    };
  } finally {
    reader.destroy();
    await stopAll(spinning);
    await Promise.all([topogate.stop(), noop.stop()]);
  }
}

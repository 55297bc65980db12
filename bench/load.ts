// The load tools, run as the API server's traffic would look: wrk for
// capacity at a fixed concurrency, h2load --h1 at a fixed request rate for
// latency. Both only ever target 127.0.0.1, for a bounded time.

import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { onCore } from './cores.ts';
import { percentiles, type Percentiles } from './stats.ts';

const run = promisify(execFile);
const WRK_SCRIPT = fileURLToPath(new URL('./post.lua', import.meta.url));

/** The API server keeps up to 25 idle connections per webhook host. */
export const CONNECTIONS = 25;
/** Connections are opened (TLS handshakes) during the warm-up, which h2load leaves out of its log: a second per 100. */
/** A connection with no answer for this long is given up (counted as failed) instead of holding the run. */
const INACTIVITY_TIMEOUT_SECONDS = 5;
const warmUpSeconds = (connections: number) => Math.max(1, Math.ceil(connections / 100));

export interface Capacity {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly errors: number;
  /** Of the errors, answers that were not 2xx (429 when the in-flight cap is reached). */
  readonly refused: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface WrkOptions {
  readonly port: number;
  readonly bodyFile: string;
  readonly seconds: number;
  /** A new TLS connection for every request (Connection: close). */
  readonly closeEachRequest?: boolean;
  /** Every request a Pod never seen before (an annotation numbered per request), so no decision is memoised. */
  readonly uniquePods?: boolean;
  /** Every request a new workload's Pod of one shape (a label no policy reads numbered per request). */
  readonly newWorkloads?: boolean;
  /** The core wrk runs on; anywhere when undefined. */
  readonly cpu?: number | undefined;
  /** Default CONNECTIONS. */
  readonly connections?: number;
  /** Ends the run early, as Ctrl-C does: wrk still prints its summary of the run so far. */
  readonly stop?: AbortSignal;
}

/** wrk runs of this process so far: each numbers its Pods apart from every earlier run's. */
let wrkRuns = 0;

export async function wrk(options: WrkOptions): Promise<Capacity> {
  const running = run(
    ...onCore(options.cpu, 'wrk', [
      '-t1',
      `-c${options.connections ?? CONNECTIONS}`,
      `-d${options.seconds}s`,
      '--timeout',
      '5s',
      '-s',
      WRK_SCRIPT,
      `https://127.0.0.1:${options.port}/mutate?timeout=10s`,
    ]),
    {
      env: {
        ...process.env,
        BENCH_BODY: options.bodyFile,
        BENCH_CLOSE: options.closeEachRequest ? '1' : '0',
        BENCH_UNIQUE: options.uniquePods ? 'annotation' : options.newWorkloads ? 'label' : '0',
        BENCH_RUN: `${process.pid}-${++wrkRuns}`,
      },
      timeout: (options.seconds + 30) * 1000,
    },
  );
  // SIGINT, as Ctrl-C: wrk stops and prints its summary (taskset has exec'd it, so the child is wrk).
  options.stop?.addEventListener('abort', () => running.child.kill('SIGINT'), { once: true });
  const { stdout } = await running;
  const line = stdout.split('\n').find((text) => text.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk printed no summary:\n${stdout}`);
  const summary = JSON.parse(line.slice('WRK_JSON '.length)) as Record<string, number>;
  const errors = ['connectErrors', 'readErrors', 'writeErrors', 'statusErrors', 'timeouts'].reduce(
    (sum, key) => sum + (summary[key] ?? 0),
    0,
  );
  return {
    requests: summary.requests!,
    requestsPerSecond: (summary.requests! / summary.durationUs!) * 1e6,
    errors,
    refused: summary.statusErrors ?? 0,
    p50Ms: summary.p50Us! / 1000,
    p99Ms: summary.p99Us! / 1000,
  };
}

export interface Latency extends Percentiles {
  readonly targetRate: number;
  readonly achievedRate: number;
  readonly failed: number;
}

export interface LatencyRun extends Latency {
  /** Every request's latency, ms, to merge runs before taking percentiles. */
  readonly samples: readonly number[];
}

export interface RateOptions {
  readonly port: number;
  readonly bodyFile: string;
  readonly seconds: number;
  readonly rate: number;
  readonly logFile: string;
  /** Default CONNECTIONS. */
  readonly connections?: number;
  /** The core h2load runs on; anywhere when undefined. */
  readonly cpu?: number | undefined;
}

/**
 * h2load at a fixed total rate spread over the connections; latencies in ms
 * from its per-request log. Each connection has one request in flight (HTTP/1.1
 * with a body), so the rate offered is at most connections ÷ latency.
 */
export async function h2load(options: RateOptions): Promise<LatencyRun> {
  const clients = Math.max(1, Math.min(options.connections ?? CONNECTIONS, Math.floor(options.rate)));
  await rm(options.logFile, { force: true });
  const { stdout } = await run(
    ...onCore(options.cpu, 'h2load', [
      '--h1',
      `-c${clients}`,
      `--rps=${(options.rate / clients).toFixed(3)}`,
      `--warm-up-time=${warmUpSeconds(clients)}`,
      `-D${options.seconds}`,
      `-N${INACTIVITY_TIMEOUT_SECONDS}`,
      '-d',
      options.bodyFile,
      '-H',
      'content-type: application/json',
      '--log-file',
      options.logFile,
      `https://127.0.0.1:${options.port}/mutate?timeout=10s`,
    ]),
    { timeout: (options.seconds + 30) * 1000, maxBuffer: 16 * 1024 * 1024 },
  );
  const rows = (await readFile(options.logFile, 'utf8')).split('\n').filter((row) => row.length > 0);
  const elapsedMs: number[] = [];
  let failed = 0;
  for (const row of rows) {
    const [, status, micros] = row.split('\t');
    if (status !== '200') failed++;
    elapsedMs.push(Number(micros) / 1000);
  }
  const done = /requests: \d+ total, \d+ started, (\d+) done/.exec(stdout);
  return {
    ...percentiles(elapsedMs),
    targetRate: options.rate,
    achievedRate: Number(done?.[1] ?? rows.length) / options.seconds,
    failed,
    samples: elapsedMs,
  };
}

// One `topogate serve` process against two behind one listener (node:cluster,
// bench/serve-workers.ts), each against the no-op webhook the same way:
// wrk keep-alive, every Pod new, runs rotating A B C so drift hits all alike.
// Besides req/s, the CPU each spends per request (all its processes) and the
// RSS of each worker, since a second worker holds a second model.

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { cpuMicros } from './cpu.ts';
import { serveArgs, startTopogate, type HttpSetup } from './http.ts';
import { wrk } from './load.ts';
import { startServer, waitReady, type Server } from './processes.ts';
import { median } from '../src/stats/order.ts';

const NOOP = fileURLToPath(new URL('./noop-webhook.ts', import.meta.url));
const WORKERS = fileURLToPath(new URL('./serve-workers.ts', import.meta.url));
const PORTS = { one: 18453, two: 18454, noop: 18455 };

export interface WorkerRun {
  readonly requestsPerSecond: number;
  /** Server CPU per answered request, µs, over every process of the server. */
  readonly cpuMicrosPerRequest: number;
}

export interface WorkersReport {
  readonly seconds: number;
  readonly rounds: number;
  readonly one: readonly WorkerRun[];
  readonly two: readonly WorkerRun[];
  readonly noop: readonly WorkerRun[];
  /** Median req/s of two workers over one. */
  readonly gain: number;
  /** RSS of each serve process after the runs, MB: the one process, then each of the two workers. */
  readonly rssMb: { readonly one: number; readonly two: readonly number[] };
}

/** The pids of a process and its children (the cluster's workers). */
async function family(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return [pid, ...children.split(' ').filter(Boolean).map(Number)];
}

async function rssMb(pid: number): Promise<number> {
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kilobytes) / 1024;
}

async function run(server: Server, setup: HttpSetup, seconds: number): Promise<WorkerRun> {
  const pids = await family(server.child.pid!);
  const cpu = () => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
  const before = cpu();
  const result = await wrk({ port: server.port, bodyFile: setup.bodyFile, seconds, uniquePods: true });
  if (result.errors > 0) throw new Error(`${server.name}: ${result.errors} errors under wrk`);
  return { requestsPerSecond: result.requestsPerSecond, cpuMicrosPerRequest: (cpu() - before) / result.requests };
}

async function startWorkers(setup: HttpSetup, count: number, port: number): Promise<Server> {
  const server = startServer(`topogate ×${count}`, port, [WORKERS, String(count), ...serveArgs(setup, port)]);
  await new Promise<void>((resolve, reject) => {
    server.child.once('message', () => resolve());
    server.child.once('exit', (code) => reject(new Error(`${server.name} exited (${code}): ${server.stderr()}`)));
  });
  await waitReady(server, '/readyz');
  return server;
}

export async function benchWorkers(
  setup: HttpSetup,
  options: { readonly seconds: number; readonly rounds: number },
): Promise<WorkersReport> {
  const servers = {
    one: await startTopogate(setup, [], PORTS.one),
    two: await startWorkers(setup, 2, PORTS.two),
    noop: startServer('no-op webhook', PORTS.noop, [NOOP, setup.certDir, String(PORTS.noop)]),
  };
  try {
    await waitReady(servers.noop, '/healthz');
    const runs = { one: [] as WorkerRun[], two: [] as WorkerRun[], noop: [] as WorkerRun[] };
    for (const server of Object.values(servers)) await run(server, setup, 1);
    for (let round = 0; round < options.rounds; round++)
      for (const [name, server] of Object.entries(servers))
        runs[name as keyof typeof runs].push(await run(server, setup, options.seconds));
    const rate = (name: keyof typeof runs) => median(runs[name].map((each) => each.requestsPerSecond));
    const workerPids = (await family(servers.two.child.pid!)).slice(1);
    return {
      ...options,
      ...runs,
      gain: rate('two') / rate('one'),
      rssMb: { one: await rssMb(servers.one.child.pid!), two: await Promise.all(workerPids.map(rssMb)) },
    };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}

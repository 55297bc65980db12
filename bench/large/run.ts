// A model the size of the largest clusters, per size: the recorded stream
// (generated once per shape, kept in bench/out/large/), the replay server in
// this process, the live model measured in a fresh process (model.ts), then
// `topogate serve --topology kube` against the same replay: its time to ready
// and its RSS. What the replay sent and was asked is the watches' cost.
//   node --expose-gc bench/large/run.ts [NODES …]

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { runChild } from '../child.ts';
import { fetchLocal, startServer, waitReady } from '../processes.ts';
import { SHIPPED_ENV, statusBytes } from '../serve-memory.ts';
import { admissionReview, trainerPod } from '../workload.ts';
import { generate, shapeOf, type StreamShape } from './generate.ts';
import type { ModelJob, ModelReport } from './model.ts';
import { startReplay, type Replay, type Traffic } from './replay.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOPOGATE = join(ROOT, 'bin', 'topogate.ts');
/** Bump when the generator's output changes: a stream on disk from another version is made again. */
const STREAM_VERSION = 2;

/** Events per second in a busy 65,000-node cluster (docs/benchmarks.md says where each comes from). */
export const CHURN_RATES = { pods: 1_600, nodes: 220, noderesourcetopologies: 110 } as const;

export interface LargeConfig {
  readonly sizes: readonly number[];
  readonly samples: number;
  readonly canaryEvents: number;
  readonly churnSeconds: number;
  readonly serveRequests: number;
}

export interface ServeLarge {
  /** From spawning `serve` to /readyz answering 200, ms (module loading, lists, warm-up). */
  readonly readyMs: number;
  readonly rssBytes: number;
  readonly peakRssBytes: number;
}

export interface LargeReport {
  readonly shape: StreamShape;
  /** Objects and bytes per resource in the recorded stream's List. */
  readonly stream: Record<string, { readonly objects: number; readonly bytes: number }>;
  readonly model: ModelReport;
  readonly serve?: ServeLarge;
  readonly serveError?: string;
  /** What topogate asked for and was sent: the lists (the in-process model's), and the churn window's events. */
  readonly listTraffic: Traffic;
  readonly churnTraffic?: Traffic;
  readonly churnRates?: Readonly<Record<string, number>>;
}

export async function stream(dir: string, shape: StreamShape): Promise<LargeReport['stream']> {
  const stamp = join(dir, 'stamp.json');
  const wanted = JSON.stringify({ STREAM_VERSION, shape });
  if (existsSync(stamp)) {
    const kept = JSON.parse(readFileSync(stamp, 'utf8')) as { key: string; written: LargeReport['stream'] };
    if (kept.key === wanted) return kept.written;
  }
  await rm(dir, { recursive: true, force: true });
  const written = generate(dir, shape);
  writeFileSync(stamp, JSON.stringify({ key: wanted, written }));
  return written;
}

export function kubeconfig(replay: Replay): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'replay', cluster: { server: replay.url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'replay', user: {} }],
    contexts: [{ name: 'replay', context: { cluster: 'replay', user: 'replay' } }],
    'current-context': 'replay',
  });
}

export async function measureServe(dir: string, config: string, requests: number): Promise<ServeLarge> {
  const policies = join(dir, 'no-policies');
  await mkdir(policies, { recursive: true });
  const port = 18_543;
  const started = performance.now();
  const server = startServer(
    'topogate',
    port,
    [
      TOPOGATE,
      'serve',
      ...['--topology', 'kube', '--kubeconfig', config, '--policies', policies],
      ...['--cert-dir', join(dir, 'certs'), '--port', String(port), '--defer', 'never', '--log-level', 'error'],
    ],
    SHIPPED_ENV,
  );
  try {
    await waitReady(server, '/readyz', 10 * 60_000);
    const readyMs = performance.now() - started;
    const body = JSON.stringify(admissionReview(trainerPod(), 'ml-training'));
    for (let i = 0; i < requests; i++) {
      const reply = await fetchLocal(port, '/mutate', body);
      if (reply.status !== 200) throw new Error(`/mutate answered ${reply.status}: ${reply.body.slice(0, 300)}`);
    }
    await sleep(2_000);
    const pid = server.child.pid!;
    return { readyMs, rssBytes: await statusBytes(pid, 'VmRSS'), peakRssBytes: await statusBytes(pid, 'VmHWM') };
  } finally {
    await server.stop();
  }
}

export async function measureLarge(config: LargeConfig, log: (line: string) => void): Promise<LargeReport[]> {
  const reports: LargeReport[] = [];
  const largest = Math.max(...config.sizes);
  for (const nodes of config.sizes) {
    const dir = join(ROOT, 'bench', 'out', 'large', String(nodes));
    const shape = shapeOf(nodes);
    log(`large model: ${nodes} nodes, ${shape.pods} Pods: the recorded stream`);
    const written = await stream(dir, shape);
    const replay = await startReplay(dir);
    try {
      const configFile = join(dir, 'kubeconfig.json');
      await writeFile(configFile, kubeconfig(replay));
      const churnSeconds = nodes === largest ? config.churnSeconds : 0;
      const job: ModelJob = {
        replayUrl: replay.url,
        kubeconfig: configFile,
        nodes,
        policies: shape.policies,
        samples: config.samples,
        canaryEvents: config.canaryEvents,
        churn: CHURN_RATES,
        churnSeconds,
      };
      log(`large model: ${nodes} nodes, the live model in process`);
      const model = await runChild<ModelReport>('./large/model.ts', job, [], 20 * 60_000);
      const listTraffic = replay.traffic();
      const churnTraffic = churnSeconds > 0 ? replay.churnTraffic() : undefined;
      replay.resetTraffic();
      let serve: ServeLarge | undefined;
      let serveError: string | undefined;
      // serve itself at the largest size only: the target is its RSS there, and each start lists the whole stream.
      if (nodes === largest) {
        log(`large model: ${nodes} nodes, topogate serve against the replay`);
        try {
          serve = await measureServe(dir, configFile, config.serveRequests);
        } catch (error) {
          serveError = (error as Error).message.slice(0, 500);
        }
      }
      reports.push({
        shape,
        stream: written,
        model,
        ...(serve && { serve }),
        ...(serveError !== undefined && { serveError }),
        listTraffic,
        ...(churnTraffic && { churnTraffic, churnRates: CHURN_RATES }),
      });
    } finally {
      await replay.close();
    }
  }
  return reports;
}

if (import.meta.main) {
  const sizes = process.argv.slice(2).map(Number);
  const reports = await measureLarge(
    { sizes: sizes.length > 0 ? sizes : [100], samples: 5_000, canaryEvents: 40, churnSeconds: 5, serveRequests: 100 },
    (line) => process.stderr.write(`${line}\n`),
  );
  process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
}

// The API server's own view of topogate's latency: on the e2e control plane
// (test/e2e/harness: real etcd, kube-apiserver, scheduler, controller
// manager), bursts of Pod creations go through topogate as a webhook, and the
// API server's histogram apiserver_admission_webhook_admission_duration_seconds
// for it is read from its /metrics before and after. Reported: how many calls
// fell outside its first bucket (5 ms), for topogate and, registered in its
// place for the same bursts, the no-op webhook (bench/noop-webhook.ts): the
// floor this cluster on this machine allows. Writes bench/results/apiserver.md
// and puts it in BENCHMARKS.md (where `npm run bench` keeps it).
//   node bench/apiserver.ts [--pods 100] [--replicas 100] [--rounds 2]

import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Pod } from '@kubernetes/client-node';
import { fleet, networkTopology } from '../test/e2e/fixtures/fleet.ts';
import { startCluster, type Cluster } from '../test/e2e/harness/cluster.ts';
import { coreApi, createNodes, kubectl, kubectlOk, metricSamples } from '../test/e2e/harness/kube.ts';
import { freePort } from '../test/e2e/harness/ports.ts';
import {
  applyAll,
  installTopogateCrds,
  registerWebhook,
  startTopogate,
  type Manifest,
  type Topogate,
} from '../test/e2e/harness/topogate.ts';
import { httpsGet } from '../test/e2e/harness/wait.ts';
import { LATENCY_HISTOGRAM } from './http.ts';
import { startServer, waitReady, type Server } from './processes.ts';
import { withSection } from './sections.ts';
import { histogram, type Bucket } from './metrics.ts';

const POLICIES = fileURLToPath(new URL('../test/e2e/fixtures/policies/', import.meta.url));
const RESULT = fileURLToPath(new URL('./results/apiserver.md', import.meta.url));
const BENCHMARKS = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
const WEBHOOK = 'pods.topogate.dev';
const HISTOGRAM = 'apiserver_admission_webhook_admission_duration_seconds';
const NOOP = fileURLToPath(new URL('./noop-webhook.ts', import.meta.url));
const NOOP_WEBHOOK = 'pods.noop.bench';
/** Pod creations in flight at once in the burst of new Pods. */
const IN_FLIGHT = 20;

export interface Buckets {
  /** Upper bound (s) → cumulative count, for topogate's webhook, summed over operation, type and rejected. */
  readonly cumulative: ReadonlyMap<number, number>;
  readonly count: number;
}

export interface Burst {
  readonly what: string;
  readonly calls: number;
  /** Calls the API server timed over its first bucket. */
  readonly outside: number;
  /** Upper bound of the first bucket, s. */
  readonly firstBucket: number;
  /** Calls per bucket upper bound (s), this burst only. */
  readonly perBucket: readonly { readonly le: number; readonly calls: number }[];
  readonly seconds: number;
  /** By topogate's own clock (arrival to answer): its answers in the burst, and those over the first bucket. */
  readonly topogate?: { readonly answers: number; readonly outside: number };
}

/** The webhook behind the registration during a burst. */
interface Side {
  readonly name: 'topogate' | 'no-op';
  /** Its name in the registration, and so in the API server's histogram. */
  readonly webhook: string;
  readonly registration: Manifest;
  /** topogate's own latency histogram; the no-op keeps none. */
  readonly ownBuckets?: () => Promise<readonly Bucket[]>;
}

export function webhookBuckets(metrics: string, webhook = WEBHOOK): Buckets {
  const cumulative = new Map<number, number>();
  for (const sample of metricSamples(metrics, `${HISTOGRAM}_bucket`)) {
    if (sample.labels.name !== webhook) continue;
    const le = sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
    cumulative.set(le, (cumulative.get(le) ?? 0) + sample.value);
  }
  const count = metricSamples(metrics, `${HISTOGRAM}_count`)
    .filter((sample) => sample.labels.name === webhook)
    .reduce((sum, sample) => sum + sample.value, 0);
  return { cumulative, count };
}

/** What one burst added to the histogram. */
export function burstOf(
  what: string,
  before: Buckets,
  after: Buckets,
  seconds: number,
  own?: { readonly before: readonly Bucket[]; readonly after: readonly Bucket[] },
): Burst {
  const bounds = [...after.cumulative.keys()].sort((a, b) => a - b);
  const delta = (le: number) => (after.cumulative.get(le) ?? 0) - (before.cumulative.get(le) ?? 0);
  const firstBucket = bounds[0] ?? Number.NaN;
  const calls = after.count - before.count;
  const perBucket = bounds.map((le, index) => ({
    le,
    calls: delta(le) - (index === 0 ? 0 : delta(bounds[index - 1]!)),
  }));
  const burst = { what, calls, outside: calls - delta(firstBucket), firstBucket, perBucket, seconds };
  if (!own) return burst;
  const ownCount = (buckets: readonly Bucket[], le: number) => buckets.find((bucket) => bucket.le === le)?.count ?? 0;
  const ownDelta = (le: number) => ownCount(own.after, le) - ownCount(own.before, le);
  const answers = ownDelta(Number.POSITIVE_INFINITY);
  return { ...burst, topogate: { answers, outside: answers - ownDelta(firstBucket) } };
}

function webPod(name: string, app: string): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { tier: 'web', app } },
    spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
  };
}

async function measure(cluster: Cluster, side: Side, what: string, burst: () => Promise<void>): Promise<Burst> {
  const read = async () => webhookBuckets((await cluster.get('/metrics')).body, side.webhook);
  const [before, ownBefore] = [await read(), await side.ownBuckets?.()];
  const start = performance.now();
  await burst();
  const seconds = (performance.now() - start) / 1000;
  const [after, ownAfter] = [await read(), await side.ownBuckets?.()];
  const own = ownBefore && ownAfter ? { before: ownBefore, after: ownAfter } : undefined;
  return burstOf(what, before, after, seconds, own);
}

/** Every Pod the first of its workload (its own app label): each decided in full. */
async function newPods(cluster: Cluster, namespace: string, count: number): Promise<void> {
  const api = coreApi(cluster);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++)
      await api.createNamespacedPod({ namespace, body: webPod(`new-${index}`, `app-${index}`) });
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** A Deployment scaled from nothing: the ReplicaSet controller's bursts of one Pod again and again. */
async function replicas(cluster: Cluster, namespace: string, count: number): Promise<void> {
  const template = webPod('', 'replicated');
  await applyAll(cluster, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'replicated', namespace },
      spec: {
        replicas: count,
        selector: { matchLabels: { app: 'replicated' } },
        template: { metadata: { labels: template.metadata!.labels }, spec: template.spec },
      },
    },
  ]);
  const api = coreApi(cluster);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const pods = await api.listNamespacedPod({ namespace, labelSelector: 'app=replicated' });
    if (pods.items.length >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${pods.items.length} of ${count} replicas after 120 s`);
    await sleep(250);
  }
}

interface Run {
  readonly side: Side['name'];
  readonly round: number;
  readonly bursts: readonly Burst[];
}

const bucketCell = (burst: Burst) =>
  burst.perBucket
    .filter((bucket) => bucket.calls > 0)
    .map((bucket) => `≤ ${bucket.le === Number.POSITIVE_INFINITY ? '∞' : `${bucket.le * 1000} ms`}: ${bucket.calls}`)
    .join(', ');

/** Per burst kind and side, every round summed: calls outside the first bucket, of all calls. */
function totals(runs: readonly Run[], side: Side['name'], index: number): { outside: number; calls: number } {
  const bursts = runs.filter((run) => run.side === side).map((run) => run.bursts[index]!);
  return {
    outside: bursts.reduce((sum, burst) => sum + burst.outside, 0),
    calls: bursts.reduce((sum, burst) => sum + burst.calls, 0),
  };
}

const HEADING = "## 10. The API server's view";

function render(runs: readonly Run[], budgetMs: number): string {
  const first = runs[0]?.bursts[0]?.firstBucket ?? 0.005;
  const kinds = runs[0]?.bursts.map((burst) => burst.what) ?? [];
  const summary = kinds.map((what, index) => {
    const [topogate, noop] = [totals(runs, 'topogate', index), totals(runs, 'no-op', index)];
    return `| ${what} | **${topogate.outside} of ${topogate.calls}** | ${noop.outside} of ${noop.calls} |`;
  });
  const rows = runs.flatMap((run) =>
    run.bursts.map(
      (burst) =>
        `| ${run.round + 1} | ${burst.what} | ${run.side} | ${burst.calls} | ${burst.outside} | ${burst.topogate ? `${burst.topogate.outside} of ${burst.topogate.answers}` : '—'} | ${bucketCell(burst)} | ${burst.seconds.toFixed(1)} |`,
    ),
  );
  return [
    HEADING,
    '',
    `\`node bench/apiserver.ts\`, ${new Date().toISOString()}: the e2e control plane (test/e2e/harness, Kubernetes`,
    `v1.37.2 built from source) with topogate registered as its mutating webhook (\`serve --topology kube\`,`,
    `\`--budget-ms ${budgetMs}\`, the e2e suite's policies over its fleet of ${fleet.length} nodes), then the no-op webhook`,
    '(`bench/noop-webhook.ts`, same certificate, same rules) registered in its place for the same bursts, in',
    `turns (A B A B). The API server's own histogram \`${HISTOGRAM}\` for the webhook, read from its /metrics`,
    `before and after each burst: calls outside its first bucket (${first * 1000} ms), which the target wants at zero.`,
    "The API server's clock includes its own side of the call (encoding the review, TLS, applying the patch), on",
    'the same 2 cores as etcd, the scheduler, the controller manager and the webhook, so the no-op row is the floor',
    `this cluster allows on this machine. Load average when it ended: ${loadavg()
      .map((load) => load.toFixed(1))
      .join(', ')}.`,
    '',
    '| burst | topogate: outside the first bucket | no-op: outside the first bucket |',
    '| --- | --- | --- |',
    ...summary,
    '',
    `Each burst, with topogate's own \`${LATENCY_HISTOGRAM}\` (arrival to answer) beside the API server's:`,
    '',
    "| round | burst | webhook | calls | outside the first bucket | topogate's own clock: over 5 ms | calls per bucket (API server) | seconds |",
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/** The pods webhook of topogate's registration, under another name and URL. */
function noopRegistration(topogate: Manifest, url: string): Manifest {
  const webhooks = (topogate['webhooks'] as Manifest[]).filter((webhook) => webhook['name'] === WEBHOOK);
  return {
    ...topogate,
    metadata: { name: 'noop-webhook' },
    webhooks: webhooks.map((webhook) => ({
      ...webhook,
      name: NOOP_WEBHOOK,
      clientConfig: { ...(webhook['clientConfig'] as Manifest), url: `${url}/mutate` },
    })),
  };
}

/** Registers one side and removes the other; returns once the API server calls this side's webhook only. */
async function activate(cluster: Cluster, side: Side, other: Side): Promise<void> {
  await applyAll(cluster, [side.registration]);
  await kubectl(cluster, ['delete', 'mutatingwebhookconfiguration', other.registration.metadata!.name!]);
  const counts = async () => {
    const metrics = (await cluster.get('/metrics')).body;
    return [webhookBuckets(metrics, side.webhook).count, webhookBuckets(metrics, other.webhook).count];
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [mine, theirs] = await counts();
    await kubectlOk(
      cluster,
      ['create', '-n', 'default', '--dry-run=server', '-f', '-'],
      JSON.stringify(webPod('probe', 'probe')),
    );
    const [mineAfter, theirsAfter] = await counts();
    if (mineAfter! > mine! && theirsAfter === theirs) return;
    if (Date.now() > deadline) throw new Error(`the API server still does not call ${side.name} alone after 30 s`);
    await sleep(250);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      pods: { type: 'string', default: '100' },
      replicas: { type: 'string', default: '100' },
      rounds: { type: 'string', default: '2' },
    },
  });
  const budgetMs = 5;
  const cluster = await startCluster({ progress: process.stderr });
  let running: Topogate | undefined;
  let noopServer: Server | undefined;
  try {
    await installTopogateCrds(cluster);
    await createNodes(coreApi(cluster), fleet);
    await applyAll(cluster, [networkTopology]);
    // The default budget, as installed: the harness's own 500 ms suits tests that must never be skipped.
    const topogate = await startTopogate({
      cluster,
      policies: POLICIES,
      serveArgs: ['--budget-ms', String(budgetMs)],
    });
    running = topogate;
    const registration = await registerWebhook(cluster, topogate);
    const noopPort = await freePort();
    noopServer = startServer('no-op webhook', noopPort, [NOOP, topogate.certDir, String(noopPort)]);
    await waitReady(noopServer, '/healthz', 20_000);
    const readOwn = async () =>
      histogram((await httpsGet(`${topogate.url}/metrics`, { ca: topogate.caPem })).body, LATENCY_HISTOGRAM);
    const sides: readonly Side[] = [
      { name: 'topogate', webhook: WEBHOOK, registration, ownBuckets: readOwn },
      {
        name: 'no-op',
        webhook: NOOP_WEBHOOK,
        registration: noopRegistration(registration, `https://127.0.0.1:${noopPort}`),
      },
    ];
    const runs: Run[] = [];
    for (let round = 0; round < Number(values.rounds); round++)
      for (const [index, side] of sides.entries()) {
        await activate(cluster, side, sides[1 - index]!);
        const namespace = `burst-${round}-${side.name}`;
        await applyAll(cluster, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }]);
        const bursts = [
          await measure(cluster, side, `${values.pods} new Pods, ${IN_FLIGHT} creations in flight`, () =>
            newPods(cluster, namespace, Number(values.pods)),
          ),
          await measure(cluster, side, `a Deployment of ${values.replicas} replicas`, () =>
            replicas(cluster, namespace, Number(values.replicas)),
          ),
        ];
        for (const burst of bursts)
          process.stderr.write(
            `round ${round + 1}, ${side.name}: ${burst.what}: ${burst.calls} calls, ${burst.outside} outside ${burst.firstBucket} s${burst.topogate ? `; topogate's own: ${burst.topogate.outside} of ${burst.topogate.answers}` : ''}\n`,
          );
        runs.push({ side: side.name, round, bursts });
      }
    const section = render(runs, budgetMs);
    await writeFile(RESULT, section);
    await writeFile(BENCHMARKS, withSection(await readFile(BENCHMARKS, 'utf8'), HEADING, section));
    process.stderr.write(`wrote ${RESULT} and its section of ${BENCHMARKS}\n`);
  } finally {
    await noopServer?.stop();
    await running?.stop();
    await cluster.stop();
  }
}

if (import.meta.main) await main();

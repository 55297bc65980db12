// The API server's own view of topogate's latency: on the e2e control plane
// (test/e2e/harness: real etcd, kube-apiserver, scheduler, controller
// manager), bursts of Pod creations go through topogate as a webhook, and the
// API server's histogram apiserver_admission_webhook_admission_duration_seconds
// for it is read from its /metrics before and after. Reported: how many calls
// fell outside its first bucket (5 ms). Writes bench/results/apiserver.md,
// which `npm run bench` keeps in BENCHMARKS.md.
//   node bench/apiserver.ts [--pods 100] [--replicas 100]

import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Pod } from '@kubernetes/client-node';
import { fleet, networkTopology } from '../test/e2e/fixtures/fleet.ts';
import { startCluster, type Cluster } from '../test/e2e/harness/cluster.ts';
import { coreApi, createNodes, kubectlOk, metricSamples } from '../test/e2e/harness/kube.ts';
import {
  applyAll,
  installTopogateCrds,
  registerWebhook,
  startTopogate,
  type Topogate,
} from '../test/e2e/harness/topogate.ts';
import { httpsGet } from '../test/e2e/harness/wait.ts';
import { LATENCY_HISTOGRAM } from './http.ts';
import { histogram, type Bucket } from './metrics.ts';

const POLICIES = fileURLToPath(new URL('../test/e2e/fixtures/policies/', import.meta.url));
const RESULT = fileURLToPath(new URL('./results/apiserver.md', import.meta.url));
const WEBHOOK = 'pods.topogate.dev';
const HISTOGRAM = 'apiserver_admission_webhook_admission_duration_seconds';
const NAMESPACE = 'team-burst';
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
  readonly topogate: { readonly answers: number; readonly outside: number };
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
  own: { readonly before: readonly Bucket[]; readonly after: readonly Bucket[] },
): Burst {
  const bounds = [...after.cumulative.keys()].sort((a, b) => a - b);
  const delta = (le: number) => (after.cumulative.get(le) ?? 0) - (before.cumulative.get(le) ?? 0);
  const firstBucket = bounds[0] ?? Number.NaN;
  const calls = after.count - before.count;
  const perBucket = bounds.map((le, index) => ({
    le,
    calls: delta(le) - (index === 0 ? 0 : delta(bounds[index - 1]!)),
  }));
  const ownCount = (buckets: readonly Bucket[], le: number) => buckets.find((bucket) => bucket.le === le)?.count ?? 0;
  const ownDelta = (le: number) => ownCount(own.after, le) - ownCount(own.before, le);
  const answers = ownDelta(Number.POSITIVE_INFINITY);
  return {
    what,
    calls,
    outside: calls - delta(firstBucket),
    firstBucket,
    perBucket,
    seconds,
    topogate: { answers, outside: answers - ownDelta(firstBucket) },
  };
}

function webPod(name: string, app: string): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { tier: 'web', app } },
    spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
  };
}

async function measure(cluster: Cluster, topogate: Topogate, what: string, burst: () => Promise<void>): Promise<Burst> {
  const read = async () => webhookBuckets((await cluster.get('/metrics')).body);
  const readOwn = async () =>
    histogram((await httpsGet(`${topogate.url}/metrics`, { ca: topogate.caPem })).body, LATENCY_HISTOGRAM);
  const [before, ownBefore] = [await read(), await readOwn()];
  const start = performance.now();
  await burst();
  const seconds = (performance.now() - start) / 1000;
  return burstOf(what, before, await read(), seconds, { before: ownBefore, after: await readOwn() });
}

/** Every Pod the first of its workload (its own app label): each decided in full. */
async function newPods(cluster: Cluster, count: number): Promise<void> {
  const api = coreApi(cluster);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++)
      await api.createNamespacedPod({ namespace: NAMESPACE, body: webPod(`new-${index}`, `app-${index}`) });
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** A Deployment scaled from nothing: the ReplicaSet controller's bursts of one Pod again and again. */
async function replicas(cluster: Cluster, count: number): Promise<void> {
  const template = webPod('', 'replicated');
  await applyAll(cluster, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'replicated', namespace: NAMESPACE },
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
    const pods = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: 'app=replicated' });
    if (pods.items.length >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${pods.items.length} of ${count} replicas after 120 s`);
    await sleep(250);
  }
}

function render(bursts: readonly Burst[], budgetMs: number, pods: number): string {
  const first = bursts[0]?.firstBucket ?? 0.005;
  const rows = bursts.map(
    (burst) =>
      `| ${burst.what} | ${burst.calls} | **${burst.outside}** | ${burst.topogate.outside} of ${burst.topogate.answers} | ${burst.perBucket
        .filter((bucket) => bucket.calls > 0)
        .map(
          (bucket) => `≤ ${bucket.le === Number.POSITIVE_INFINITY ? '∞' : `${bucket.le * 1000} ms`}: ${bucket.calls}`,
        )
        .join(', ')} | ${burst.seconds.toFixed(1)} |`,
  );
  return [
    "## 7. The API server's view",
    '',
    `\`node bench/apiserver.ts\`, ${new Date().toISOString()}: the e2e control plane (test/e2e/harness, Kubernetes`,
    `v1.37.2 built from source) with topogate registered as its mutating webhook (\`serve --topology kube\`,`,
    `\`--budget-ms ${budgetMs}\`, the e2e suite's policies over its fleet of ${fleet.length} nodes), ${pods} Pods created in bursts. The API server's own`,
    `histogram \`${HISTOGRAM}{name="${WEBHOOK}"}\`, read from its /metrics before and after each burst: calls`,
    `outside its first bucket (${first * 1000} ms), which the target wants at zero. The API server's clock includes`,
    'its own side of the call (TLS to the webhook, encoding the review, applying the patch), on the same 2 cores as',
    'etcd, the scheduler, the controller manager and topogate; the load average when it ended was',
    `${loadavg()
      .map((load) => load.toFixed(1))
      .join(', ')}. Beside it, topogate's own \`${LATENCY_HISTOGRAM}\` over the same bursts (arrival to answer).`,
    '',
    "| burst | calls | outside the first bucket | by topogate's own clock: over 5 ms, of its answers | calls per bucket (API server) | seconds |",
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { pods: { type: 'string', default: '100' }, replicas: { type: 'string', default: '100' } },
  });
  const budgetMs = 5;
  const cluster = await startCluster({ progress: process.stderr });
  let running: Topogate | undefined;
  try {
    await installTopogateCrds(cluster);
    await createNodes(coreApi(cluster), fleet);
    await applyAll(cluster, [networkTopology, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }]);
    // The default budget, as installed: the harness's own 500 ms suits tests that must never be skipped.
    const topogate = await startTopogate({
      cluster,
      policies: POLICIES,
      serveArgs: ['--budget-ms', String(budgetMs)],
    });
    running = topogate;
    await registerWebhook(cluster, topogate);
    await kubectlOk(
      cluster,
      ['create', '-n', NAMESPACE, '--dry-run=server', '-f', '-'],
      JSON.stringify(webPod('probe', 'probe')),
    );
    await sleep(2_000);
    const bursts = [
      await measure(cluster, topogate, `${values.pods} new Pods, ${IN_FLIGHT} creations in flight`, () =>
        newPods(cluster, Number(values.pods)),
      ),
      await measure(cluster, topogate, `a Deployment of ${values.replicas} replicas`, () =>
        replicas(cluster, Number(values.replicas)),
      ),
    ];
    for (const burst of bursts)
      process.stderr.write(
        `${burst.what}: ${burst.calls} calls, ${burst.outside} outside ${burst.firstBucket} s; topogate's own: ${burst.topogate.outside} of ${burst.topogate.answers}\n`,
      );
    await writeFile(RESULT, render(bursts, budgetMs, Number(values.pods) + Number(values.replicas)));
    process.stderr.write(`wrote ${RESULT}\n`);
  } finally {
    await running?.stop();
    await cluster.stop();
  }
}

if (import.meta.main) await main();

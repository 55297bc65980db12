// The API server's own view of topogate's latency: on the e2e control plane
// (test/e2e/harness: real etcd, kube-apiserver, scheduler, controller
// manager), bursts of Pod creations go through topogate as a webhook, and the
// API server's histogram apiserver_admission_webhook_admission_duration_seconds
// for it is read from its /metrics before and after. Reported: how many calls
// fell outside its first bucket (5 ms), for topogate and, registered in its
// place for the same bursts, the no-op webhook (bench/noop-webhook.ts): the
// floor this cluster on this machine allows. Writes bench/results/apiserver.md
// and puts it in BENCHMARKS.md; `npm run bench` runs it too (its `apiserver`
// section), with the target's verdict in the Targets table.
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
} from '../test/e2e/harness/topogate.ts';
import { httpsGet } from '../test/e2e/harness/wait.ts';
import { LATENCY_HISTOGRAM } from './http.ts';
import { startServer, waitReady } from './processes.ts';
import { withSection } from './sections.ts';
import { histogram, type Bucket } from './metrics.ts';
import {
  API_SERVER_HEADING,
  burstOf,
  renderApiServerSection,
  type ApiServerReport,
  type Buckets,
  type Burst,
  type Run,
  type SideName,
} from './apiserver-report.ts';

const POLICIES = fileURLToPath(new URL('../test/e2e/fixtures/policies/', import.meta.url));
const RESULT = fileURLToPath(new URL('./results/apiserver.md', import.meta.url));
const BENCHMARKS = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
const WEBHOOK = 'pods.topogate.dev';
const HISTOGRAM = 'apiserver_admission_webhook_admission_duration_seconds';
const NOOP = fileURLToPath(new URL('./noop-webhook.ts', import.meta.url));
const NOOP_WEBHOOK = 'pods.noop.bench';
/** Pod creations in flight at once in the burst of new Pods. */
const IN_FLIGHT = 20;

/** The webhook behind the registration during a burst. */
interface Side {
  readonly name: SideName;
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

export interface ApiServerConfig {
  readonly pods: number;
  readonly replicas: number;
  readonly rounds: number;
}

/** topogate and the no-op, each behind a registration of its own, on a started cluster with the e2e fleet. */
async function startSides(cluster: Cluster, budgetMs: number) {
  await installTopogateCrds(cluster);
  await createNodes(coreApi(cluster), fleet);
  await applyAll(cluster, [networkTopology]);
  // The default budget, as installed: the harness's own 500 ms suits tests that must never be skipped.
  const topogate = await startTopogate({ cluster, policies: POLICIES, serveArgs: ['--budget-ms', String(budgetMs)] });
  const registration = await registerWebhook(cluster, topogate);
  const noopPort = await freePort();
  const noop = startServer('no-op webhook', noopPort, [NOOP, topogate.certDir, String(noopPort)]);
  await waitReady(noop, '/healthz', 20_000);
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
  return { sides, stop: async () => Promise.all([noop.stop(), topogate.stop()]) };
}

/** Both bursts through one side, in a namespace of its own. */
async function bursts(cluster: Cluster, side: Side, round: number, config: ApiServerConfig): Promise<Burst[]> {
  const namespace = `burst-${round}-${side.name}`;
  await applyAll(cluster, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }]);
  return [
    await measure(cluster, side, `${config.pods} new Pods, ${IN_FLIGHT} creations in flight`, () =>
      newPods(cluster, namespace, config.pods),
    ),
    await measure(cluster, side, `a Deployment of ${config.replicas} replicas`, () =>
      replicas(cluster, namespace, config.replicas),
    ),
  ];
}

/** Starts the e2e control plane, runs the rounds (topogate, then the no-op, each round), and stops it all. */
export async function measureApiServer(config: ApiServerConfig, log: (line: string) => void): Promise<ApiServerReport> {
  const budgetMs = 5;
  const cluster = await startCluster({ progress: process.stderr });
  try {
    const { sides, stop } = await startSides(cluster, budgetMs);
    try {
      const runs: Run[] = [];
      for (let round = 0; round < config.rounds; round++)
        for (const [index, side] of sides.entries()) {
          await activate(cluster, side, sides[1 - index]!);
          const measured = await bursts(cluster, side, round, config);
          for (const burst of measured)
            log(
              `round ${round + 1}, ${side.name}: ${burst.what}: ${burst.calls} calls, ${burst.outside} outside ${burst.firstBucket} s${burst.topogate ? `; topogate's own: ${burst.topogate.outside} of ${burst.topogate.answers}` : ''}`,
            );
          runs.push({ side: side.name, round, bursts: measured });
        }
      return {
        at: new Date().toISOString(),
        budgetMs,
        nodes: fleet.length,
        histogram: HISTOGRAM,
        runs,
        load: loadavg(),
      };
    } finally {
      await stop();
    }
  } finally {
    await cluster.stop();
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
  const config = { pods: Number(values.pods), replicas: Number(values.replicas), rounds: Number(values.rounds) };
  const section = renderApiServerSection(await measureApiServer(config, (line) => process.stderr.write(`${line}\n`)));
  await writeFile(RESULT, section);
  await writeFile(BENCHMARKS, withSection(await readFile(BENCHMARKS, 'utf8'), API_SERVER_HEADING, section));
  process.stderr.write(`wrote ${RESULT} and its section of ${BENCHMARKS}\n`);
}

if (import.meta.main) await main();

// The live topology: every source watched on an API server (in-cluster
// config, KUBECONFIG, or a kubeconfig file), etcd members scraped, and one
// model that decisions read without waiting.

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { KubeObject } from '../../kube/types.ts';
import { TOPOLOGY_SOURCES } from '../../topology/kinds.ts';
import type { SourceName, TopologySnapshot } from '../../topology/model.ts';
import type { Readiness } from '../../ports/readiness.ts';
import type { TopologyProvider } from '../../ports/topology.ts';
import { DEFAULT_ETCD_SCRAPE, EtcdScraper, type EtcdScrapeOptions } from './etcd-scraper.ts';
import { LiveModel } from './live-model.ts';
import { slim } from '../../kube-client/slim.ts';
import { podOf } from '../../topology/read/pod-record.ts';
import { createTopologyMetrics } from './metrics.ts';
import { sourceReadiness } from './readiness.ts';
import { DEFAULT_TIMING, SourceWatch, type WatchTiming } from './watch.ts';
import { WATCHES } from './watches.ts';
import { loadKubeConfig } from '../../kube-client/kubeconfig.ts';

export interface KubeTopologyOptions {
  /** A kubeconfig file; else KUBECONFIG, ~/.kube/config or the in-cluster service account. */
  readonly kubeconfig?: string;
  /** etcd metrics URLs to scrape; when given they, not EtcdCluster objects, are the etcd source. */
  readonly etcdMetrics: readonly string[];
  readonly log: Logger;
  readonly registry: Registry;
  /**
   * Out of contact longer than this, a source is named in readiness as degraded (default 60 s);
   * sources in contact get a fresh updatedAt every quarter of it.
   */
  readonly maxAgeMs?: number;
  readonly timing?: Partial<WatchTiming>;
  /**
   * Keep every source's objects as listed and watched, for objects() (`topogate snapshot` writes them). Off, the
   * model's own facts are the one copy of the Nodes, Pods and the rest (the control-plane Pods are kept for the
   * etcd scraper): at 65,000 nodes and 500,000 Pods, the second copy was a fifth of serve's heap.
   */
  readonly keepObjects?: boolean;
  readonly etcdScrape?: Partial<EtcdScrapeOptions>;
}

export interface KubeTopology extends TopologyProvider {
  /** Resolves once ready (every source synced or disabled), or rejects after timeoutMs. */
  ready(timeoutMs: number): Promise<void>;
  /** Every kept source's objects as the API server (or etcd) gave them, by source (see keepObjects). */
  objects(): ReadonlyMap<SourceName, readonly KubeObject[]>;
}

const DEFAULT_MAX_AGE_MS = 60_000;
/**
 * Listed once the Nodes have been (or their list failed): the Pods are most of a large cluster's bytes (1.5 GB of
 * 1.9 at 65,000 nodes), and their pages, taken in turns with the Nodes', held back the first snapshot of every node.
 */
const LISTED_LAST: SourceName = 'pods';

/** Calls `start` once the nodes source has listed or failed; answers a function that stops waiting. */
function listLast(model: LiveModel, start: () => void): () => void {
  const settled = () => {
    const nodes = model.current.sources.get('nodes');
    return nodes === undefined || nodes.synced || nodes.error !== undefined || nodes.disabled !== undefined;
  };
  if (settled()) {
    start();
    return () => undefined;
  }
  const unsubscribe = model.subscribe(() => {
    if (!settled()) return;
    unsubscribe();
    start();
  });
  return unsubscribe;
}

/** Each source's watch on the API server, and the etcd scraper in place of EtcdClusters when URLs are given. */
function sourcesOf(
  options: KubeTopologyOptions,
  config: ReturnType<typeof loadKubeConfig>,
  model: LiveModel,
  metrics: ReturnType<typeof createTopologyMetrics>,
  log: Logger,
): { watches: Map<SourceName, SourceWatch>; scraper: EtcdScraper | undefined } {
  const timing = { ...DEFAULT_TIMING, ...options.timing };
  const scrapeEtcd = options.etcdMetrics.length > 0;
  const watches = new Map(
    WATCHES.filter((spec) => !(scrapeEtcd && spec.source === 'etcd')).map((spec) => [
      spec.source,
      new SourceWatch(
        spec,
        config,
        model,
        metrics,
        log,
        timing,
        options.keepObjects === true || spec.source === 'controlPlanePods',
      ),
    ]),
  );
  const scraper = scrapeEtcd
    ? new EtcdScraper(
        options.etcdMetrics,
        model,
        () => watches.get('controlPlanePods')?.objects() ?? [],
        metrics,
        log,
        { ...DEFAULT_ETCD_SCRAPE, ...options.etcdScrape },
      )
    : undefined;
  return { watches, scraper };
}

/** Resolves once `readiness` holds (checked on each new snapshot); rejects with its reason after timeoutMs. */
function untilReady(model: LiveModel, readiness: () => Readiness, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (readiness().ready) return resolve();
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(readiness().reason ?? 'topology not ready'));
    }, timeoutMs);
    const unsubscribe = model.subscribe(() => {
      if (!readiness().ready) return;
      clearTimeout(timer);
      unsubscribe();
      resolve();
    });
  });
}

export function createKubeTopology(options: KubeTopologyOptions): KubeTopology {
  const config = loadKubeConfig(options.kubeconfig);
  const server = config.getCurrentCluster()?.server;
  if (!server) throw new Error(`no cluster in ${options.kubeconfig ?? 'the default kubeconfig'}`);

  const log = options.log.child({ component: 'topology' });
  const metrics = createTopologyMetrics(options.registry);
  // SchedulingPolicy objects have a watch of their own (src/sources/policies/objects.ts).
  const model = new LiveModel(TOPOLOGY_SOURCES, metrics, log);
  const { watches, scraper } = sourcesOf(options, config, model, metrics, log);
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const readiness = (): Readiness => sourceReadiness(model.current, Date.now(), maxAgeMs);

  log.info({ server, etcdMetrics: options.etcdMetrics }, 'watching the cluster topology');
  for (const [source, watch] of watches) if (source !== LISTED_LAST) watch.start();
  const stopWaitingForNodes = listLast(model, () => watches.get(LISTED_LAST)?.start());
  scraper?.start();
  // Decisions judge a source's age by its updatedAt: a healthy but quiet watch must not look old.
  const refresher = setInterval(() => model.refresh(), Math.max(1000, maxAgeMs / 4));
  refresher.unref();

  return {
    current: (): TopologySnapshot => model.current,
    occupancy: () => model.occupancy(),
    expect: (source, object) => model.expect(source, slim(source, object)),
    assume: (usage) => model.assume(usage),
    readiness,
    subscribe: (listener) => model.subscribe(listener),
    ready: (timeoutMs) => untilReady(model, readiness, timeoutMs),
    objects() {
      const bySource = new Map<SourceName, readonly KubeObject[]>();
      // A Pod is kept as its usage: given back as a Pod that reads the same (pod-record.ts).
      for (const [source, watch] of watches)
        bySource.set(source, source === 'pods' ? watch.objects().map(podOf) : watch.objects());
      if (scraper) bySource.set('etcd', scraper.objects());
      return bySource;
    },
    async stop() {
      stopWaitingForNodes();
      clearInterval(refresher);
      model.stop();
      scraper?.stop();
      await Promise.all([...watches.values()].map((watch) => watch.stop()));
    },
  };
}

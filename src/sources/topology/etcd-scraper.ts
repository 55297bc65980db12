// etcd members' metrics endpoints, polled: a metrics page cannot be watched.
// Each round that learns something new replaces the etcd source with one
// EtcdCluster object; a round in which no member answers marks it stale and
// keeps what was known.

import type { Logger } from 'pino';
import type { KubeObject } from '../../kube/types.ts';
import { readEtcdMetrics } from '../../topology/etcd/metrics.ts';
import { etcdMetricsUrl } from '../../topology/etcd/metrics-url.ts';
import { etcdClusterObject, type ScrapedMember } from '../../topology/etcd/place.ts';
import type { SourceName } from '../../topology/model.ts';
import type { LiveModel } from './live-model.ts';
import type { TopologyMetrics } from './metrics.ts';

export interface EtcdScrapeOptions {
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

export const DEFAULT_ETCD_SCRAPE: EtcdScrapeOptions = { intervalMs: 1000, timeoutMs: 900 };

/** Members are placed from these: published before they have synced, the etcd source would be ready with its leader on no node. */
const PLACEMENT_SOURCES: readonly SourceName[] = ['nodes', 'controlPlanePods'];
const PLACEMENT_WAIT_MS = 100;

export class EtcdScraper {
  readonly #urls: readonly string[];
  readonly #model: LiveModel;
  readonly #pods: () => readonly KubeObject[];
  readonly #metrics: TopologyMetrics;
  readonly #log: Logger;
  readonly #options: EtcdScrapeOptions;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #last: KubeObject | undefined;
  #lastJson = '';
  #failing: string | undefined;

  /** `pods`: the control-plane Pods known now, to place members on their nodes. */
  constructor(
    urls: readonly string[],
    model: LiveModel,
    pods: () => readonly KubeObject[],
    metrics: TopologyMetrics,
    log: Logger,
    options: EtcdScrapeOptions,
  ) {
    this.#urls = urls.map(etcdMetricsUrl);
    this.#model = model;
    this.#pods = pods;
    this.#metrics = metrics;
    this.#log = log.child({ source: 'etcd' });
    this.#options = options;
  }

  start(): void {
    this.#stopped = false;
    void this.#round();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** What the last successful round learned, as an EtcdCluster object. */
  objects(): KubeObject[] {
    return this.#last ? [this.#last] : [];
  }

  async #round(): Promise<void> {
    const results = await Promise.all(this.#urls.map((url) => this.#scrape(url)));
    if (this.#stopped) return;
    const members = results.filter((r): r is ScrapedMember => typeof r !== 'string');
    const errors = results.filter((r): r is string => typeof r === 'string');
    if (members.length > 0 && !this.#placementSynced()) {
      this.#timer = setTimeout(() => void this.#round(), PLACEMENT_WAIT_MS);
      this.#timer.unref();
      return;
    }
    if (members.length === 0) {
      this.#fail(errors.join('; '));
    } else {
      const object = etcdClusterObject(members, this.#pods(), this.#model.current.nodes);
      const json = JSON.stringify(object);
      if (json !== this.#lastJson || this.#failing !== undefined) {
        this.#model.replace('etcd', [object]);
        this.#metrics.events.inc({ source: 'etcd' });
        if (this.#failing !== undefined) this.#log.info('etcd metrics answer again');
      }
      this.#last = object;
      this.#lastJson = json;
      this.#failing = undefined;
      if (errors.length > 0) this.#log.debug({ errors }, 'some etcd members did not answer: left out');
    }
    this.#timer = setTimeout(() => void this.#round(), this.#options.intervalMs);
    this.#timer.unref();
  }

  async #scrape(url: string): Promise<ScrapedMember | string> {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.#options.timeoutMs) });
      if (!response.ok) return `${url}: HTTP ${response.status}`;
      const metrics = readEtcdMetrics(await response.text());
      return metrics ? { endpoint: url, metrics } : `${url}: no etcd_server_is_leader metric`;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return `${url}: ${cause ?? (error as Error).message}`;
    }
  }

  #placementSynced(): boolean {
    return PLACEMENT_SOURCES.every((name) => {
      const status = this.#model.current.sources.get(name);
      return status === undefined || status.synced || status.disabled !== undefined;
    });
  }

  #fail(message: string): void {
    if (message !== this.#failing)
      this.#log.warn(`no etcd member answered (${message}); keeping the last known members`);
    this.#failing = message;
    this.#model.fail('etcd', message);
  }
}

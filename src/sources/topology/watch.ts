// One source kept in the model by list + watch (a client-node informer).
// - A list (the first, or after 410 Gone) replaces the source's objects, handed
//   to the model page by page as each is parsed, and ended once whole.
// - A broken watch or failed list marks the source stale, keeps its objects,
//   and starts over with a fresh informer (so a fresh list) after a backoff.
// - A resource that is not served (a CRD not installed) disables the source
//   with one log line, and is looked for again, quietly, now and then; its CRD
//   is watched meanwhile (one watch, by name), so an install is seen at once.

import { type KubeConfig, type KubernetesListObject, type KubernetesObject, Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeObject } from '../../kube/types.ts';
import type { WatchEventType } from '../../topology/builder.ts';
import type { TopologyMetrics } from './metrics.ts';
import { describeKubeError, statusOf } from '../../kube-client/errors.ts';
import { Informer } from '../../kube-client/informer.ts';
import type { ObjectList, WatchedSource, WatchSpec } from './watches.ts';

/** One list's objects, as its pages come; end(): the list was whole, and what it did not bring is gone. */
export interface ListSink {
  page(objects: readonly KubeObject[]): void;
  end(): void;
}

/** Where a watch delivers what it lists and sees: the live topology model, or the SchedulingPolicy objects. */
export interface WatchSink {
  apply(source: WatchedSource, type: WatchEventType, object: KubeObject): void;
  /** A list begins; one begun later supersedes it. */
  startList(source: WatchedSource): ListSink;
  disable(source: WatchedSource, reason: string): void;
  fail(source: WatchedSource, error: string): void;
}

export interface WatchTiming {
  /** First delay after a failure; doubles up to maxBackoffMs (each delay less a random fifth at most). */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** How often to look again for a resource that was not served. */
  readonly absentRecheckMs: number;
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A CRD whose Established condition is True: its resource is served. */
function established(object: unknown): boolean {
  const conditions = (object as { status?: { conditions?: unknown } } | undefined)?.status?.conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some(
      (condition: { type?: unknown; status?: unknown }) =>
        condition?.type === 'Established' && condition.status === 'True',
    )
  );
}

export const DEFAULT_TIMING: WatchTiming = { backoffMs: 500, maxBackoffMs: 30_000, absentRecheckMs: 60_000 };

export class SourceWatch {
  readonly #spec: WatchSpec;
  readonly #config: KubeConfig;
  readonly #model: WatchSink;
  readonly #metrics: Pick<TopologyMetrics, 'relists'>;
  readonly #log: Logger;
  readonly #timing: WatchTiming;
  readonly #informer: Informer<KubernetesObject>;
  readonly #keepObjects: boolean;
  #stopped = false;
  #lists = 0;
  #absent = false;
  #crdWatch: AbortController | undefined;
  /**
   * The objects of the list just taken: the informer reports each of them as added or updated right after the list,
   * but the model has them already (replace), so those reports are skipped rather than applied and counted again.
   */
  #fromList: ReadonlySet<object> | undefined;
  /** The list in progress, and how many objects its pages have brought. */
  #listing: ListSink | undefined;
  #listedObjects = 0;

  constructor(
    spec: WatchSpec,
    config: KubeConfig,
    model: WatchSink,
    metrics: Pick<TopologyMetrics, 'relists'>,
    log: Logger,
    timing: WatchTiming,
    /** False: the informer keeps none of the objects (objects() answers none); the sink's own facts are all. */
    keepObjects = true,
  ) {
    this.#spec = spec;
    this.#config = config;
    this.#model = model;
    this.#metrics = metrics;
    this.#log = log.child({ source: spec.source });
    this.#timing = timing;
    this.#keepObjects = keepObjects;
    const source = spec.source;
    this.#informer = new Informer<KubernetesObject>({
      config,
      path: spec.path,
      // The spec's list slims its items; the watch slims what it sees.
      list: async (signal) => (await this.#list(signal)) as KubernetesListObject<KubernetesObject>,
      ...(spec.labelSelector !== undefined && { labelSelector: spec.labelSelector }),
      ...(spec.fieldSelector !== undefined && { fieldSelector: spec.fieldSelector }),
      slimAs: source,
      listSlimmed: true,
      cache: keepObjects,
      backoff: { initialMs: timing.backoffMs, maxMs: timing.maxBackoffMs },
      title: this.#title,
      log: this.#log,
      onList: (items) => this.#listed(items as KubeObject[]),
      onEvent: (type, object) =>
        (type !== 'DELETED' && this.#fromList?.has(object)) || this.#model.apply(source, type, object as KubeObject),
      onFailure: (error) => this.#failed(error),
    });
  }

  start(): void {
    this.#stopped = false;
    this.#informer.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopWatchingCrd();
    await this.#informer.stop();
  }

  /**
   * The objects the source holds now, as the API server sent them (after a failure, the last ones listed); none
   * when it keeps none.
   */
  objects(): KubeObject[] {
    return this.#informer.list() as KubeObject[];
  }

  /**
   * The list, each page to the model as it is parsed: at 65,000 Nodes, one list applied whole held the event loop
   * (and admission requests behind it) for over 2 s, and kept every page's objects alive until it ended.
   */
  #list(signal: AbortSignal): Promise<ObjectList> {
    const listing = this.#model.startList(this.#spec.source);
    this.#listing = listing;
    this.#listedObjects = 0;
    return this.#spec.list(this.#config, {
      onPage: (objects) => {
        listing.page(objects);
        if (this.#listing === listing) this.#listedObjects += objects.length;
      },
      keep: this.#keepObjects,
      signal,
    });
  }

  #listed(items: readonly KubeObject[]): void {
    if (this.#lists++ > 0) this.#metrics.relists.inc({ source: this.#spec.source });
    this.#listing?.end();
    this.#listing = undefined;
    // A caching informer reports each listed object as added, in the turn it gets the list: by the next, its
    // reports are watch events. One that keeps nothing reports none.
    if (this.#keepObjects) {
      this.#fromList = new Set(items);
      setImmediate(() => (this.#fromList = undefined));
    }
    if (this.#absent) this.#log.info({ objects: this.#listedObjects }, `${this.#title} is back`);
    this.#absent = false;
    this.#stopWatchingCrd();
  }

  /** A resource not served disables the source and is looked for now and then; any other failure marks it stale. */
  #failed(error: unknown): number | undefined {
    if (!this.#spec.crd || statusOf(error) !== 404) {
      this.#model.fail(this.#spec.source, describeKubeError(error));
      return undefined;
    }
    if (!this.#absent) {
      this.#log.warn(
        `${this.#title} disabled: ${this.#spec.apiVersion} ${this.#spec.kind} is not served (CRD ${this.#spec.crd} not installed); looking again every ${Math.round(this.#timing.absentRecheckMs / 1000)}s`,
      );
      this.#model.disable(this.#spec.source, `CRD ${this.#spec.crd} not installed`);
    }
    this.#absent = true;
    void this.#watchCrd(this.#spec.crd);
    return this.#timing.absentRecheckMs;
  }

  /**
   * Until the CRD is established, a watch on it alone: its arrival lists the source at once rather than at the
   * next recheck. Without the right to watch CRDs (or on any failure) the recheck timer is all there is.
   */
  async #watchCrd(name: string): Promise<void> {
    if (this.#crdWatch !== undefined || this.#stopped) return;
    const aborted = new AbortController();
    this.#crdWatch = aborted;
    const arrived = (phase: string, object: unknown) => {
      if (this.#crdWatch !== aborted || (phase !== 'ADDED' && phase !== 'MODIFIED') || !established(object)) return;
      this.#stopWatchingCrd();
      this.#log.info(`CRD ${name} established: listing ${this.#title} now`);
      this.#informer.relist(0);
    };
    // The watch ends (a server timeout, an error): the recheck timer, still set, looks again, and a failed
    // list starts a new watch.
    const ended = () => {
      if (this.#crdWatch === aborted) this.#crdWatch = undefined;
    };
    try {
      const started = await new Watch(this.#config).watch(
        CRD_PATH,
        { fieldSelector: `metadata.name=${name}` },
        arrived,
        ended,
      );
      if (this.#crdWatch === aborted) aborted.signal.addEventListener('abort', () => started.abort(), { once: true });
      else started.abort();
    } catch (error) {
      ended();
      this.#log.debug(`watching CRD ${name} failed (${describeKubeError(error)}): looking again on the recheck`);
    }
  }

  #stopWatchingCrd(): void {
    this.#crdWatch?.abort();
    this.#crdWatch = undefined;
  }

  get #title(): string {
    return this.#spec.title ?? `topology source ${this.#spec.source}`;
  }
}

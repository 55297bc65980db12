// One source kept in the model by list + watch (a client-node informer).
// - A list (the first, or after 410 Gone) replaces the source's objects.
// - A broken watch or failed list marks the source stale, keeps its objects,
//   and starts over with a fresh informer (so a fresh list) after a backoff.
// - A resource that is not served (a CRD not installed) disables the source
//   with one log line, and is looked for again, quietly, now and then; its CRD
//   is watched meanwhile (one watch, by name), so an install is seen at once.

import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeObject } from '../../kube/types.ts';
import type { WatchEventType } from '../../topology/builder.ts';
import type { TopologyMetrics } from './metrics.ts';
import { describeKubeError, statusOf } from './errors.ts';
import { slim } from './slim.ts';
import type { WatchedSource, WatchSpec } from './watches.ts';

/** Where a watch delivers what it lists and sees: the live topology model, or the SchedulingPolicy objects. */
export interface WatchSink {
  apply(source: WatchedSource, type: WatchEventType, object: KubeObject): void;
  replace(source: WatchedSource, objects: readonly KubeObject[]): void;
  disable(source: WatchedSource, reason: string): void;
  fail(source: WatchedSource, error: string): void;
}

export interface WatchTiming {
  /** First delay after a failure; doubles up to maxBackoffMs. */
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

type Informer = ListWatch<KubernetesObject>;

/** A watch whose objects are slimmed before the informer caches them. */
export class SlimWatch extends Watch {
  readonly #source: WatchSpec['source'];

  constructor(config: KubeConfig, source: WatchSpec['source']) {
    super(config);
    this.#source = source;
  }

  override watch(...[path, query, callback, done]: Parameters<Watch['watch']>): Promise<AbortController> {
    return super.watch(
      path,
      query,
      (phase, object, raw) => callback(phase, phase === 'ERROR' || !object ? object : slim(this.#source, object), raw),
      done,
    );
  }
}

export class SourceWatch {
  readonly #spec: WatchSpec;
  readonly #config: KubeConfig;
  readonly #model: WatchSink;
  readonly #metrics: Pick<TopologyMetrics, 'relists'>;
  readonly #log: Logger;
  readonly #timing: WatchTiming;
  #informer: Informer | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #lists = 0;
  #failures = 0;
  #absent = false;
  #lastError: string | undefined;
  #crdWatch: AbortController | undefined;
  /**
   * The objects of the list just taken: the informer reports each of them as added or updated right after the list,
   * but the model has them already (replace), so those reports are skipped rather than applied and counted again.
   */
  #fromList: ReadonlySet<object> | undefined;

  constructor(
    spec: WatchSpec,
    config: KubeConfig,
    model: WatchSink,
    metrics: Pick<TopologyMetrics, 'relists'>,
    log: Logger,
    timing: WatchTiming,
  ) {
    this.#spec = spec;
    this.#config = config;
    this.#model = model;
    this.#metrics = metrics;
    this.#log = log.child({ source: spec.source });
    this.#timing = timing;
  }

  start(): void {
    this.#stopped = false;
    this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#stopWatchingCrd();
    const informer = this.#informer;
    this.#informer = undefined;
    await informer?.stop();
  }

  /** The objects the source holds now, as the API server sent them. */
  objects(): KubeObject[] {
    return (this.#informer?.list() ?? []) as KubeObject[];
  }

  #run(): void {
    if (this.#stopped) return;
    const source = this.#spec.source;
    // makeInformer, with a watch that slims what it caches.
    const informer = new ListWatch<KubernetesObject>(
      this.#spec.path,
      new SlimWatch(this.#config, source),
      () => this.#list(),
      false,
      this.#spec.labelSelector,
    );
    informer.on(
      'add',
      (object) => this.#fromList?.has(object) || this.#model.apply(source, 'ADDED', object as KubeObject),
    );
    informer.on(
      'update',
      (object) => this.#fromList?.has(object) || this.#model.apply(source, 'MODIFIED', object as KubeObject),
    );
    informer.on('delete', (object) => this.#model.apply(source, 'DELETED', object as KubeObject));
    informer.on('error', (error) => this.#failed(informer, error));
    this.#informer = informer;
    informer.start().catch((error: unknown) => this.#failed(informer, error));
  }

  async #list(): Promise<KubernetesListObject<KubernetesObject>> {
    const list = await this.#spec.list(this.#config);
    if (this.#lists++ > 0) this.#metrics.relists.inc({ source: this.#spec.source });
    this.#model.replace(this.#spec.source, list.items);
    if (this.#absent || this.#lastError !== undefined)
      this.#log.info({ objects: list.items.length }, `${this.#title} is back`);
    this.#absent = false;
    this.#stopWatchingCrd();
    this.#lastError = undefined;
    this.#failures = 0;
    // The informer's cache keys objects by metadata: every item has one.
    const items = list.items.map((item) => (item.metadata ? item : { ...item, metadata: {} }));
    // The informer takes the list in the turn it gets it: by the next, its reports are watch events.
    this.#fromList = new Set(items);
    setImmediate(() => (this.#fromList = undefined));
    return { ...list, items } as KubernetesListObject<KubernetesObject>;
  }

  #failed(informer: Informer, error: unknown): void {
    // A late error from an informer already replaced (or stopped) is old news.
    if (this.#stopped || informer !== this.#informer) return;
    this.#informer = undefined;
    void informer.stop();
    const status = statusOf(error);
    if (this.#spec.crd && status === 404) {
      if (!this.#absent) {
        this.#log.warn(
          `${this.#title} disabled: ${this.#spec.apiVersion} ${this.#spec.kind} is not served (CRD ${this.#spec.crd} not installed); looking again every ${Math.round(this.#timing.absentRecheckMs / 1000)}s`,
        );
        this.#model.disable(this.#spec.source, `CRD ${this.#spec.crd} not installed`);
      }
      this.#absent = true;
      this.#later(this.#timing.absentRecheckMs);
      void this.#watchCrd(this.#spec.crd);
      return;
    }
    const message = describeKubeError(error);
    this.#model.fail(this.#spec.source, message);
    const delay = Math.min(this.#timing.backoffMs * 2 ** this.#failures++, this.#timing.maxBackoffMs);
    // One line per kind of failure, not one per retry.
    if (message !== this.#lastError)
      this.#log.warn({ retryInMs: delay }, `${this.#title}: ${message}; keeping its last objects and listing again`);
    else this.#log.debug({ retryInMs: delay }, `${this.#title}: ${message}`);
    this.#lastError = message;
    this.#later(delay);
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
      this.#later(0);
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

  #later(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#run(), delayMs);
    this.#timer.unref();
  }
}

// One kind kept by list + watch (client-node's ListWatch), as every part of topogate keeps the objects it reads:
// - a watch the API server ends with 410 Gone lists again (ListWatch does that itself);
// - any other failure (a broken watch, a failed list) drops that ListWatch and starts a fresh one, so a fresh
//   list, after a bounded backoff with jitter (backoff.ts); a list that succeeds resets the backoff;
// - meanwhile list() answers the objects of the last whole list, so a blip loses nothing;
// - a ListWatch dropped (or the informer stopped) while it lists has its list aborted: no one wants its pages;
// - objects may be slimmed as they arrive (slim.ts): a Node's image list alone is most of its bytes;
// - or not kept at all (cache: false): the lists and events go to onList and onEvent, for a model that keeps its
//   own facts of them (uncached-list-watch.ts).

import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeObject } from '../kube/types.ts';
import { Backoff, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';
import { describeKubeError } from './errors.ts';
import { slim } from './slim.ts';
import { type ListWatchLike, UncachedListWatch } from './uncached-list-watch.ts';

export type InformerEvent = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface InformerOptions<T extends KubernetesObject> {
  readonly config: KubeConfig;
  /** The collection's URL path, e.g. /api/v1/pods. */
  readonly path: string;
  /** `signal` aborts when the list is no longer wanted (the informer stopped, or dropped its ListWatch). */
  readonly list: (signal: AbortSignal) => Promise<KubernetesListObject<T>>;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Slimmed as this watched source's objects are (slim.ts); undefined keeps objects whole. */
  readonly slimAs?: string;
  /** `list` answers its items slimmed already (as each page is parsed): only watch events are slimmed here. */
  readonly listSlimmed?: boolean;
  /** False: no object is kept (list() and get() answer none); each list reaches onList whole, with no add events. */
  readonly cache?: boolean;
  readonly backoff?: BackoffOptions;
  /** Names the informer in log lines. */
  readonly title: string;
  readonly log: Logger;
  /** Every successful list, its items as cached. */
  readonly onList?: (items: readonly T[]) => void;
  /** Every change the cache takes, from a list or the watch. */
  readonly onEvent?: (type: InformerEvent, object: T) => void;
  /**
   * A failure, before the informer lists again. Answer a delay to take the failure over (the hook has said what
   * it had to); undefined: the informer logs it once per kind and lists again after the next backoff.
   */
  readonly onFailure?: (error: unknown) => number | undefined;
}

/**
 * A watch that asks for bookmarks (`allowWatchBookmarks`), as client-go's informers do: now and then the API server
 * tells a quiet watch the resourceVersion it has reached, so that a watch that ends resumes from there rather than
 * from its last object's, which etcd may have compacted meanwhile (410 Gone: a list of every object again). Both
 * list-watches take a BOOKMARK as a resourceVersion only, never as an object.
 */
export class BookmarkWatch extends Watch {
  override watch(...[path, query, callback, done]: Parameters<Watch['watch']>): Promise<AbortController> {
    return super.watch(path, { ...query, allowWatchBookmarks: true }, callback, done);
  }
}

/** A watch whose objects are slimmed before the cache keeps them. */
export class SlimWatch extends BookmarkWatch {
  readonly #source: string;

  constructor(config: KubeConfig, source: string) {
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

export class Informer<T extends KubernetesObject> {
  readonly #options: InformerOptions<T>;
  readonly #backoff: Backoff;
  #watch: ListWatchLike<T> | undefined;
  /** Aborts the current ListWatch's list, should one still be paging when it is dropped. */
  #listing: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  /** The current ListWatch has listed, so its cache is whole. */
  #listed = false;
  /** Some list has succeeded: list() is the cluster's, not an empty start. */
  #synced = false;
  #last: readonly T[] = [];
  #lastError: string | undefined;

  constructor(options: InformerOptions<T>) {
    this.#options = options;
    this.#backoff = new Backoff(options.backoff ?? DEFAULT_BACKOFF);
  }

  start(): void {
    this.#stopped = false;
    this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const watch = this.#watch;
    this.#watch = undefined;
    this.#listing?.abort();
    await watch?.stop();
  }

  /** The cached objects; after a failure, those of the last whole list until a list succeeds again. */
  list(): readonly T[] {
    if (this.#watch !== undefined && this.#listed) this.#last = this.#watch.list();
    return this.#last;
  }

  /** One cached object, while the watch is whole. */
  get(name: string, namespace?: string): T | undefined {
    return this.#listed ? this.#watch?.get(name, namespace) : undefined;
  }

  synced(): boolean {
    return this.#synced;
  }

  /** Drops the current watch and lists again after delayMs (0: at once), whatever the backoff says. */
  relist(delayMs: number): void {
    if (this.#stopped) return;
    this.#drop();
    this.#later(delayMs);
  }

  #run(): void {
    if (this.#stopped) return;
    const { config, path, slimAs, labelSelector, fieldSelector, onEvent } = this.#options;
    const client = slimAs === undefined ? new BookmarkWatch(config) : new SlimWatch(config, slimAs);
    const listing = new AbortController();
    const list = (): Promise<KubernetesListObject<T>> => this.#list(watch, listing.signal);
    const watch: ListWatchLike<T> =
      this.#options.cache === false
        ? new UncachedListWatch<T>(path, client, list, labelSelector, fieldSelector)
        : new ListWatch<T>(path, client, list, false, labelSelector, fieldSelector);
    if (onEvent !== undefined) {
      watch.on('add', (object) => onEvent('ADDED', object));
      watch.on('update', (object) => onEvent('MODIFIED', object));
      watch.on('delete', (object) => onEvent('DELETED', object));
    }
    watch.on('error', (error) => this.#failed(watch, error));
    this.#watch = watch;
    this.#listing = listing;
    this.#listed = false;
    watch.start().catch((error: unknown) => this.#failed(watch, error));
  }

  async #list(watch: ListWatchLike<T>, signal: AbortSignal): Promise<KubernetesListObject<T>> {
    const list = await this.#options.list(signal);
    const { slimAs, listSlimmed } = this.#options;
    // The cache keys objects by metadata: every item has one.
    const items = listSlimmed
      ? list.items
      : list.items.map((item) => {
          const whole = { ...item, metadata: item.metadata ?? {} };
          return (slimAs === undefined ? whole : slim(slimAs, whole as unknown as KubeObject)) as T;
        });
    if (watch !== this.#watch) return { ...list, items };
    if (this.#lastError !== undefined) this.#options.log.info({ objects: items.length }, `${this.#title} is back`);
    this.#lastError = undefined;
    this.#listed = true;
    this.#synced = true;
    this.#backoff.reset();
    this.#options.onList?.(items);
    return { ...list, items };
  }

  #failed(watch: ListWatchLike<T>, error: unknown): void {
    // A late error from a ListWatch already replaced (or stopped) is old news.
    if (this.#stopped || watch !== this.#watch) return;
    this.#drop();
    const taken = this.#options.onFailure?.(error);
    if (taken !== undefined) return this.#later(taken);
    const delay = this.#backoff.next();
    const message = describeKubeError(error);
    // One line per kind of failure, not one per retry.
    const log = this.#options.log;
    if (message !== this.#lastError)
      log.warn({ retryInMs: delay }, `${this.#title}: ${message}; keeping its last objects and listing again`);
    else log.debug({ retryInMs: delay }, `${this.#title}: ${message}`);
    this.#lastError = message;
    this.#later(delay);
  }

  #drop(): void {
    const watch = this.#watch;
    if (watch !== undefined && this.#listed) this.#last = watch.list();
    this.#watch = undefined;
    this.#listing?.abort();
    this.#listed = false;
    void watch?.stop();
  }

  #later(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#run(), delayMs);
    this.#timer.unref();
  }

  get #title(): string {
    return this.#options.title;
  }
}

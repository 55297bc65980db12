// A list, then a watch from the list's resourceVersion, as client-node's ListWatch runs them, without its cache of
// every object: for a kind whose objects one model reads and keeps as its own facts (the Nodes and Pods of the
// live topology: at 65,000 nodes and 500,000 Pods, a second copy of each was a fifth of serve's heap). The list is
// reported whole (the informer's onList), never as an add per item; watch events as they come. A watch ended by
// 410 Gone lists again; one silent past client-node's request timeout resumes at once from the last
// resourceVersion seen, one that ends cleanly after a delay that doubles while watches end with nothing in them
// (1 s to 30 s, as ListWatch); any other failure is an error.

import type { KubernetesListObject, KubernetesObject, Watch } from '@kubernetes/client-node';
import { statusOf } from './errors.ts';

type Verb = 'add' | 'update' | 'delete' | 'error';
const VERB_OF: Readonly<Record<string, Verb | undefined>> = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' };
const FIRST_RESUME_DELAY_MS = 1_000;
const MAX_RESUME_DELAY_MS = 30_000;

/** What the informer uses of a ListWatch. */
export interface ListWatchLike<T extends KubernetesObject> {
  on(verb: 'add' | 'update' | 'delete', callback: (object: T) => void): void;
  on(verb: 'error', callback: (error: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  list(): readonly T[];
  get(name: string, namespace?: string): T | undefined;
}

export class UncachedListWatch<T extends KubernetesObject> implements ListWatchLike<T> {
  readonly #path: string;
  readonly #watch: Watch;
  readonly #list: () => Promise<KubernetesListObject<T>>;
  readonly #query: Record<string, string>;
  readonly #callbacks: Record<Verb, ((object: T) => void)[]> = { add: [], update: [], delete: [], error: [] };
  #resourceVersion = '';
  #resumeDelayMs = 0;
  #request: AbortController | undefined;
  /** Counts the watches started: the end of one already replaced is not acted on. */
  #attempt = 0;
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    path: string,
    watch: Watch,
    list: () => Promise<KubernetesListObject<T>>,
    labelSelector?: string,
    fieldSelector?: string,
  ) {
    this.#path = path;
    this.#watch = watch;
    this.#list = list;
    this.#query = {
      ...(labelSelector !== undefined && { labelSelector }),
      ...(fieldSelector !== undefined && { fieldSelector }),
    };
  }

  on(verb: 'add' | 'update' | 'delete', callback: (object: T) => void): void;
  on(verb: 'error', callback: (error: unknown) => void): void;
  on(verb: Verb, callback: (value: never) => void): void {
    this.#callbacks[verb].push(callback as (object: T) => void);
  }

  /** Nothing is kept: the objects went to whoever listened. */
  list(): readonly T[] {
    return [];
  }

  get(): T | undefined {
    return undefined;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    await this.#next(null);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#request?.abort();
    this.#request = undefined;
  }

  /** After the watch ended (error null: cleanly) or at the start: list if needed, then watch. */
  async #next(error: unknown): Promise<void> {
    this.#request?.abort();
    this.#request = undefined;
    const attempt = ++this.#attempt;
    if (error && statusOf(error) === 410) this.#resourceVersion = '';
    else if (error) return this.#emit('error', error);
    if (this.#stopped) return;
    try {
      if (!this.#resourceVersion) await this.#takeList();
      if (this.#stopped) return;
      const request = await this.#watch.watch(
        this.#path,
        { ...this.#query, resourceVersion: this.#resourceVersion },
        (phase, object: T) => this.#event(phase, object),
        (ended: unknown) => this.#ended(attempt, ended),
      );
      if (this.#stopped || attempt !== this.#attempt) request.abort();
      else this.#request = request;
    } catch (failure) {
      this.#emit('error', failure);
    }
  }

  /** Apart from #next, whose frame lives on while its watch is awaited: the list would live on with it. */
  async #takeList(): Promise<void> {
    const list = await this.#list();
    this.#resourceVersion = list.metadata?.resourceVersion ?? '';
    this.#resumeDelayMs = 0;
  }

  #ended(attempt: number, error: unknown): void {
    // An abort of our own (stop, or a watch already replaced) is not an end to act on.
    if (this.#stopped || attempt !== this.#attempt) return;
    if ((error as { name?: unknown } | null)?.name === 'TimeoutError') this.#resumeDelayMs = 0;
    else if (error || !this.#resourceVersion) return void this.#next(error);
    const delay = this.#resumeDelayMs;
    this.#resumeDelayMs = Math.min(Math.max(delay * 2, FIRST_RESUME_DELAY_MS), MAX_RESUME_DELAY_MS);
    this.#timer = setTimeout(() => void this.#next(null), delay);
    this.#timer.unref();
  }

  #event(phase: string, object: T): void {
    if (phase === 'ERROR') {
      // 410 Gone: the resourceVersion is too old; the watch ends next, and the list is taken again.
      if ((object as { code?: unknown } | undefined)?.code === 410) this.#resourceVersion = '';
      return;
    }
    // A BOOKMARK (informer.ts asks for them) carries only this: taken, and not emitted below.
    const resourceVersion = object?.metadata?.resourceVersion;
    if (typeof resourceVersion === 'string' && resourceVersion !== '') this.#resourceVersion = resourceVersion;
    this.#resumeDelayMs = 0;
    const verb = VERB_OF[phase];
    if (verb !== undefined && object?.metadata) this.#emit(verb, object);
  }

  #emit(verb: Verb, object: unknown): void {
    for (const callback of this.#callbacks[verb]) callback(object as T);
  }
}

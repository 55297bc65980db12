// The cluster's SchedulingPolicy objects (shell), watched by an informer of their own beside the
// topology model's: a policy edit publishes no topology snapshot, and a Node event recombines no
// policies. A lost watch relists (SourceWatch); until the CRD is installed the source is disabled.

import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { KubeObject } from '../../kube/types.ts';
import type { WatchEventType } from '../../topology/builder.ts';
import { DEFAULT_TIMING, type ListSink, SourceWatch, type WatchSink, type WatchTiming } from '../topology/watch.ts';
import { POLICY_WATCH } from '../topology/watches.ts';

export interface PolicyObjectsStatus {
  /** A full list has been taken since the watch started (or the CRD came back). */
  readonly synced: boolean;
  /** Synced, and the watch has not failed since: the objects are current. */
  readonly inContact: boolean;
  /** Why there are no objects to watch (the CRD is not installed). */
  readonly disabled?: string;
  /** The watch's last failure while out of contact. */
  readonly error?: string;
}

/** What the policy store reads of the SchedulingPolicy objects. */
export interface PolicyObjectSource {
  /** The objects last listed or seen, as the API server sent them. */
  objects(): readonly KubeObject[];
  status(): PolicyObjectsStatus;
  /** Told at most once per turn of the event loop after a change (a relist of 500 objects is one call). */
  subscribe(listener: () => void): () => void;
  stop(): Promise<void>;
}

/** The objects and the state of their watch, fed by a SourceWatch. */
export class PolicyObjects implements WatchSink, PolicyObjectSource {
  readonly #objects = new Map<string, KubeObject>();
  readonly #listeners = new Set<() => void>();
  readonly #log: Logger;
  #status: PolicyObjectsStatus = { synced: false, inContact: false };
  #scheduled = false;

  constructor(log: Logger) {
    this.#log = log;
  }

  objects(): readonly KubeObject[] {
    return [...this.#objects.values()];
  }

  status(): PolicyObjectsStatus {
    return this.#status;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.#listeners.clear();
  }

  apply(_source: string, type: WatchEventType, object: KubeObject): void {
    const name = object.metadata?.name;
    if (typeof name !== 'string') return;
    if (type === 'DELETED') this.#objects.delete(name);
    else this.#objects.set(name, object);
    this.#schedule();
  }

  /** A list's pages are gathered and replace the objects once it is whole: policies are combined as a set. */
  startList(source: string): ListSink {
    const listed: KubeObject[] = [];
    return { page: (objects) => void listed.push(...objects), end: () => this.replace(source, listed) };
  }

  replace(_source: string, objects: readonly KubeObject[]): void {
    this.#objects.clear();
    for (const object of objects)
      if (typeof object.metadata?.name === 'string') this.#objects.set(object.metadata.name, object);
    this.#status = { synced: true, inContact: true };
    this.#schedule();
  }

  disable(_source: string, reason: string): void {
    this.#objects.clear();
    this.#status = { synced: false, inContact: false, disabled: reason };
    this.#schedule();
  }

  fail(_source: string, error: string): void {
    this.#status = { synced: this.#status.synced, inContact: false, error };
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      for (const listener of this.#listeners) {
        try {
          listener();
        } catch (error) {
          this.#log.error({ err: error }, 'a SchedulingPolicy objects subscriber failed');
        }
      }
    });
  }
}

export interface WatchPolicyObjectsOptions {
  readonly config: KubeConfig;
  readonly log: Logger;
  readonly registry: Registry;
  readonly timing?: Partial<WatchTiming>;
}

/** Starts the informer; stop() ends it. */
export function watchPolicyObjects({ config, log, registry, timing }: WatchPolicyObjectsOptions): PolicyObjectSource {
  const sink = new PolicyObjects(log);
  const relists = new Counter({
    name: 'topogate_policy_objects_relists_total',
    help: 'Full lists of the SchedulingPolicy objects after the first (a lost watch, an expired resourceVersion).',
    labelNames: ['source'],
    registers: [registry],
  });
  const component = log.child({ component: 'policy-objects' });
  const watch = new SourceWatch(POLICY_WATCH, config, sink, { relists }, component, { ...DEFAULT_TIMING, ...timing });
  watch.start();
  return {
    objects: () => sink.objects(),
    status: () => sink.status(),
    subscribe: (listener) => sink.subscribe(listener),
    async stop() {
      await watch.stop();
      await sink.stop();
    },
  };
}

/** Resolves once the objects are listed (or their CRD is known absent); rejects after timeoutMs. */
export function listed(source: PolicyObjectSource, timeoutMs: number): Promise<void> {
  const done = () => source.status().synced || source.status().disabled !== undefined;
  return new Promise((resolve, reject) => {
    if (done()) return resolve();
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`SchedulingPolicy objects not listed: ${source.status().error ?? 'no answer'}`));
    }, timeoutMs);
    const unsubscribe = source.subscribe(() => {
      if (!done()) return;
      clearTimeout(timer);
      unsubscribe();
      resolve();
    });
  });
}

// A list + watch cache of one kind (client-node's informer) that lists again
// after any error, with a backoff, keeping what it had meanwhile. Objects can
// be slimmed as the topology watches slim them (a Node's image list alone is
// most of its bytes), so 1,000 Nodes cost each agent little memory.

import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeObject } from '../../kube/types.ts';
import type { SourceName } from '../../topology/model.ts';
import { describeKubeError } from '../../sources/topology/errors.ts';
import { slim } from '../../sources/topology/slim.ts';
import { SlimWatch } from '../../sources/topology/watch.ts';

const BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

export class Informed<T extends KubernetesObject> {
  readonly #start: () => ListWatch<T>;
  readonly #log: Logger;
  #informer: ListWatch<T> | undefined;
  #last: readonly T[] = [];
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** The current informer has listed, so its cache is whole. */
  #listed = false;
  /** Some list has succeeded: list() is the cluster's, not an empty start. */
  #synced = false;

  constructor(
    config: KubeConfig,
    /** Slimmed as this topology source's objects are; undefined keeps objects whole. */
    source: SourceName | undefined,
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
    log: Logger,
    labelSelector?: string,
  ) {
    this.#log = log;
    const listed = async () => {
      const result = await list();
      this.#listed = true;
      this.#synced = true;
      this.#failures = 0;
      if (!source) return result;
      return {
        ...result,
        items: result.items.map((item) => slim(source, item as unknown as KubeObject) as unknown as T),
      };
    };
    this.#start = () =>
      new ListWatch<T>(path, source ? new SlimWatch(config, source) : new Watch(config), listed, false, labelSelector);
  }

  start(): void {
    if (this.#stopped) return;
    const informer = this.#start();
    this.#informer = informer;
    this.#listed = false;
    informer.on('error', (error) => this.#failed(informer, error));
    informer.start().catch((error: unknown) => this.#failed(informer, error));
  }

  /** The cached objects; after an error, the last ones seen until the list succeeds again. */
  list(): readonly T[] {
    const current = this.#informer?.list();
    if (current && this.#listed) this.#last = current;
    return this.#last;
  }

  synced(): boolean {
    return this.#synced;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#informer?.stop();
  }

  #failed(informer: ListWatch<T>, error: unknown): void {
    if (this.#stopped || informer !== this.#informer) return;
    if (this.#listed) this.#last = informer.list();
    this.#informer = undefined;
    void informer.stop();
    const delay = Math.min(BACKOFF_MS * 2 ** this.#failures++, MAX_BACKOFF_MS);
    this.#log.warn({ retryInMs: delay }, `watch failed: ${describeKubeError(error)}; listing again`);
    this.#timer = setTimeout(() => this.start(), delay);
    this.#timer.unref();
  }
}

// A list + watch cache of one kind (client-node's informer) that lists again
// after any error, with a backoff, keeping what it had meanwhile.

import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeKubeError } from '../../sources/topology/errors.ts';

const BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

export class Informed<T extends KubernetesObject> {
  readonly #start: () => ReturnType<typeof makeInformer<T>>;
  readonly #log: Logger;
  #informer: ReturnType<typeof makeInformer<T>> | undefined;
  #last: readonly T[] = [];
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** The current informer has listed, so its cache is whole. */
  #listed = false;

  constructor(
    config: KubeConfig,
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
    log: Logger,
    labelSelector?: string,
  ) {
    this.#log = log;
    const listed = async () => {
      const result = await list();
      this.#listed = true;
      this.#failures = 0;
      return result;
    };
    this.#start = () => makeInformer(config, path, listed, labelSelector);
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

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#informer?.stop();
  }

  #failed(informer: ReturnType<typeof makeInformer<T>>, error: unknown): void {
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

// Lists taken in a worker thread (list-worker.ts): at 65,000 nodes and
// 500,000 Pods, receiving, cutting and parsing the pages was most of the main
// thread's time to the first snapshot and to ready, time in which admission
// requests waited. One worker takes every list at once; it starts with the
// first list and ends when none has been running for a while, so a quiet
// topogate holds no second thread.

import { Worker } from 'node:worker_threads';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../kube/types.ts';
import { type ListDelivery, ListError, listTarget, type ObjectList } from './list.ts';
import { fromWire, type FromWorker, type ListRequest, takeList, type ToWorker } from './wire.ts';

/** With no list running this long, the worker ends (a relist starts another). */
const IDLE_MS = 1_000;

interface Pending {
  readonly request: ListRequest;
  readonly delivery: ListDelivery;
  readonly items: KubeObject[];
  /** The list's messages, handled one after another: a page whose onPage waits holds back the next, and the end. */
  handled: Promise<void>;
  resolve(list: ObjectList): void;
  reject(error: unknown): void;
}

class ListWorker {
  /** Told each time a worker has ended: the memory its lists went through is free then. */
  readonly exited = new Set<() => void>();
  #worker: Worker | undefined;
  #idle: NodeJS.Timeout | undefined;
  #next = 0;
  readonly #pending = new Map<number, Pending>();

  async list(config: KubeConfig, request: ListRequest, delivery: ListDelivery): Promise<ObjectList> {
    delivery.signal?.throwIfAborted();
    const target = await listTarget(config);
    // Through a proxy, the list stays in this thread, with client-node's proxy agent.
    if (target.options.agent !== undefined) return takeList(target, request, delivery);
    delivery.signal?.throwIfAborted();
    const id = this.#next++;
    const worker = this.#started();
    return new Promise<ObjectList>((resolve, reject) => {
      const settle = () => {
        this.#pending.delete(id);
        delivery.signal?.removeEventListener('abort', aborted);
        this.#settled();
      };
      const aborted = () => {
        settle();
        this.#send({ type: 'abort', id });
        reject(delivery.signal!.reason);
      };
      this.#pending.set(id, {
        request,
        delivery,
        items: [],
        handled: Promise.resolve(),
        resolve: (list) => (settle(), resolve(list)),
        reject: (error) => (settle(), reject(error)),
      });
      delivery.signal?.addEventListener('abort', aborted, { once: true });
      worker.postMessage({ type: 'list', id, target, request } satisfies ToWorker);
    });
  }

  #started(): Worker {
    clearTimeout(this.#idle);
    this.#idle = undefined;
    if (this.#worker !== undefined) return (this.#worker.ref(), this.#worker);
    const worker = new Worker(new URL('./list-worker.ts', import.meta.url));
    worker.on('message', (message: FromWorker) => {
      const pending = this.#pending.get(message.id);
      // Each page in a turn of its own: Node hands a port's messages over in one go, those arriving meanwhile
      // included, so applied at once 5-8 pages of Nodes held the event loop for 0.2-0.7 s.
      if (pending !== undefined)
        pending.handled = pending.handled.then(nextTurn).then(() => this.#received(pending, message));
    });
    // A worker that fails (out of memory, a bug) fails the lists it held; the next list starts a new one.
    const lost = (why: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      for (const pending of [...this.#pending.values()]) pending.reject(new Error(`the list worker ${why}`));
    };
    worker.on('error', (error: Error) => lost(`failed: ${error.message}`));
    worker.on('exit', (code) => {
      lost(`exited (code ${code})`);
      for (const listener of this.exited) listener();
    });
    this.#worker = worker;
    return worker;
  }

  /** No list left: the worker no longer holds the process open, and ends after IDLE_MS unless a list comes. */
  #settled(): void {
    if (this.#pending.size > 0 || this.#worker === undefined) return;
    const worker = this.#worker;
    worker.unref();
    this.#idle = setTimeout(() => {
      if (this.#worker !== worker || this.#pending.size > 0) return;
      this.#worker = undefined;
      void worker.terminate();
    }, IDLE_MS);
    this.#idle.unref();
  }

  #send(message: ToWorker): void {
    this.#worker?.postMessage(message);
  }

  /** Never rejects: whatever fails here fails the list. */
  async #received(pending: Pending, message: FromWorker): Promise<void> {
    // Settled meanwhile (aborted, or a page that failed): what else comes of the list is dropped.
    if (this.#pending.get(message.id) !== pending) return;
    if (message.type === 'error') {
      const { message: text, code, body } = message;
      return pending.reject(code !== undefined ? new ListError(code, body ?? '') : new Error(text));
    }
    if (message.type === 'end') {
      const { resourceVersion } = message;
      return pending.resolve({ items: pending.items, metadata: resourceVersion ? { resourceVersion } : {} });
    }
    let items: KubeObject[];
    try {
      items = fromWire(pending.request, message.json);
      await pending.delivery.onPage?.(items);
    } catch (error) {
      this.#send({ type: 'abort', id: message.id });
      return pending.reject(error);
    }
    if (pending.delivery.keep !== false) for (const item of items) pending.items.push(item);
    this.#send({ type: 'ack', id: message.id });
  }
}

const lists = new ListWorker();

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Lists as listPaged does (the same delivery), in the worker thread; pages are applied in this one, in order. */
export function listOffThread(
  config: KubeConfig,
  request: ListRequest,
  delivery: ListDelivery = {},
): Promise<ObjectList> {
  return lists.list(config, request, delivery);
}

/**
 * Calls `listener` each time the list worker has ended (`serve` then gives glibc's free memory back: the pages of a
 * 65,000-node cluster's lists went through the worker's own malloc arena); answers how to stop.
 */
export function onListWorkerExit(listener: () => void): () => void {
  lists.exited.add(listener);
  return () => void lists.exited.delete(listener);
}

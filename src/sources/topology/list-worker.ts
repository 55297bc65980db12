// The worker thread that takes the lists (off-thread.ts starts it): receiving
// and cutting each page here (and parsing and slimming Pods) leaves the main
// thread, which answers admission requests, the parse of what is kept and its
// application to the model. Pages are handed on as JSON text (wire.ts), at
// most one ahead of the page the main thread is applying, so that pages never
// pile up unapplied.

import { parentPort } from 'node:worker_threads';
import type { RequestOptions } from 'node:https';
import { ListError, type ListTarget } from './list.ts';
import { type FromWorker, type ListRequest, takeListAsWire, type ToWorker } from './wire.ts';

/** Pages posted and not yet applied, per list, before the worker waits: the next is parsed while one is applied. */
const AHEAD = 2;

interface Running {
  readonly abort: AbortController;
  unacked: number;
  /** Resolves when the main thread has applied a page. */
  acked: (() => void) | undefined;
}

const port = parentPort!;
const running = new Map<number, Running>();

/** TLS material arrives as Uint8Arrays (a Buffer does not survive the message): Buffers again for node:tls. */
function revived({ server, options }: ListTarget): ListTarget {
  const asBuffer = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(asBuffer)
      : value instanceof Uint8Array
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
        : value;
  const tls: RequestOptions = {};
  for (const name of ['ca', 'cert', 'key', 'pfx'] as const)
    if (options[name] !== undefined) tls[name] = asBuffer(options[name]) as never;
  return { server, options: { ...options, ...tls } };
}

function post(message: FromWorker): void {
  port.postMessage(message);
}

async function list(id: number, target: ListTarget, request: ListRequest): Promise<void> {
  const state: Running = { abort: new AbortController(), unacked: 0, acked: undefined };
  running.set(id, state);
  try {
    const resourceVersion = await takeListAsWire(revived(target), request, state.abort.signal, async (json) => {
      post({ type: 'page', id, json });
      if (++state.unacked < AHEAD) return;
      await new Promise<void>((resolve) => (state.acked = resolve));
    });
    post({ type: 'end', id, ...(resourceVersion !== undefined && { resourceVersion }) });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    post({
      type: 'error',
      id,
      message: failure.message,
      ...(failure instanceof ListError && { code: failure.code, body: failure.body }),
    });
  } finally {
    running.delete(id);
  }
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'list') return void list(message.id, message.target, message.request);
  const state = running.get(message.id);
  if (state === undefined) return;
  if (message.type === 'abort') {
    state.abort.abort();
    // A list waiting for an ack waits no more: its next step sees the abort.
    state.acked?.();
    return;
  }
  state.unacked--;
  const acked = state.acked;
  state.acked = undefined;
  acked?.();
});

// GET /api/events' streams (server-sent events): the data again whenever it changes, a burst of changes pushed
// once after a quiet time, and a comment line now and then so that idle proxies keep the stream open.

import type { ServerResponse } from 'node:http';
import type { ViewData } from '../data.ts';

/** Open event streams at most: each is a browser tab. */
export const maxStreams = 32;
const heartbeatMs = 15_000;

export interface EventStreams {
  /** maxStreams are open. */
  full(): boolean;
  /** Streams the data on `response` (its head written already) from now on. */
  open(response: ServerResponse): void;
  close(): void;
}

export function eventStreams(
  read: () => ViewData,
  onChange: (listener: () => void) => () => void,
  settleMs: number,
): EventStreams {
  const streams = new Set<ServerResponse>();
  let settling: NodeJS.Timeout | undefined;
  const push = () => {
    const event = `event: snapshot\ndata: ${JSON.stringify(read())}\n\n`;
    for (const stream of streams) stream.write(event);
  };
  const unsubscribe = onChange(() => {
    if (streams.size === 0 || settling) return;
    settling = setTimeout(() => {
      settling = undefined;
      push();
    }, settleMs);
  });
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': keep-alive\n\n');
  }, heartbeatMs).unref();
  return {
    full: () => streams.size >= maxStreams,
    open(response) {
      response.write(`retry: 2000\nevent: snapshot\ndata: ${JSON.stringify(read())}\n\n`);
      streams.add(response);
      // The response's close, not the request's: a GET's request closes as soon as it has been read.
      response.once('close', () => streams.delete(response));
    },
    close() {
      unsubscribe();
      clearInterval(heartbeat);
      clearTimeout(settling);
      for (const stream of streams) stream.end();
    },
  };
}

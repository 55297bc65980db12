// One port for all: probe connections (echoed, frame by frame), bounded
// throughput transfers (bulk.ts) and HTTP (/healthz, /metrics, /summary), told
// apart by their first byte, so that the DaemonSet exposes a single container
// port named `probe`.

import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { BULK_MARK, sink } from './bulk.ts';
import { FRAME_MARK } from './frame.ts';

/** A probe connection that sends more than this without reading its answers is not a prober. */
const MAX_UNANSWERED_BYTES = 64 * 1024;

export interface Listener {
  readonly port: number;
  close(): Promise<void>;
}

export async function listen(host: string, port: number, http: RequestListener): Promise<Listener> {
  const httpServer = createHttpServer({ keepAliveTimeout: 5_000 }, http);
  const connections = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    socket.setNoDelay(true);
    socket.once('data', (first: Buffer) => {
      if (first[0] === FRAME_MARK) echo(socket, first);
      else if (first[0] === BULK_MARK) sink(socket, first);
      else {
        socket.unshift(first);
        httpServer.emit('connection', socket);
      }
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of connections) socket.destroy();
      }),
  };
}

function echo(socket: Socket, first: Buffer): void {
  const answer = (chunk: Buffer) => {
    if (socket.writableLength > MAX_UNANSWERED_BYTES) socket.destroy();
    else socket.write(chunk);
  };
  answer(first);
  socket.on('data', answer);
}

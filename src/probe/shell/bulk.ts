// The bounded throughput probe's wire format: the sender opens a connection,
// sends BULK_MARK, the payload length (uint32) and that many bytes; the
// receiver counts them and answers one byte when all have come. Throughput is
// bytes over the time from the first byte sent to the answer, so it
// understates by one round trip in the transfer's duration (about 5% for
// 16 MiB at 10 Gbps and 1 ms).

import { connect, type Socket } from 'node:net';

/** No HTTP method and not FRAME_MARK: tells a transfer from a probe or HTTP on the shared port. */
export const BULK_MARK = 0x02;
const HEADER_BYTES = 5;
const DONE = 0x06;
/** A sender may not ask a receiver to take more than this. */
export const MAX_BULK_BYTES = 256 * 1024 * 1024;
/** A transfer that stalls this long on the receiver's side is cut. */
const IDLE_MS = 30_000;
const CHUNK = Buffer.alloc(64 * 1024);

/** The receiving side, given the first chunk read from a connection whose first byte is BULK_MARK. */
export function sink(socket: Socket, first: Buffer): void {
  socket.setTimeout(IDLE_MS, () => socket.destroy());
  let header = Buffer.alloc(0);
  let expected: number | undefined;
  let received = 0;
  const take = (chunk: Buffer) => {
    if (expected === undefined) {
      header = Buffer.concat([header, chunk]);
      if (header.length < HEADER_BYTES) return;
      expected = header.readUInt32BE(1);
      if (expected > MAX_BULK_BYTES) return socket.destroy();
      chunk = header.subarray(HEADER_BYTES);
    }
    received += chunk.length;
    if (received > expected) return socket.destroy();
    if (received === expected) {
      socket.off('data', take);
      socket.end(Buffer.of(DONE));
    }
  };
  take(first);
  socket.on('data', take);
}

export interface TransferTarget {
  readonly ip: string;
  readonly port: number;
}

/**
 * Sends `bytes` to a peer's probe port; resolves to Gbps, or rejects on error or after timeoutMs. `clock`
 * (ms) is read when the connection opens and when the answer comes.
 */
export function transfer(
  target: TransferTarget,
  bytes: number,
  timeoutMs: number,
  localAddress: string | undefined,
  clock: () => number = () => performance.now(),
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.ip, port: target.port, ...(localAddress && { localAddress }) });
    const timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let started = 0;
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.once('error', fail);
    socket.once('close', () => fail(new Error('closed before the answer')));
    socket.once('connect', () => {
      started = clock();
      const header = Buffer.alloc(HEADER_BYTES);
      header[0] = BULK_MARK;
      header.writeUInt32BE(bytes, 1);
      socket.write(header);
      void send(socket, bytes).catch(fail);
    });
    socket.once('data', (answer: Buffer) => {
      if (answer[0] !== DONE) return fail(new Error('unexpected answer'));
      const seconds = (clock() - started) / 1000;
      clearTimeout(timer);
      socket.removeAllListeners('close');
      socket.destroy();
      resolve((bytes * 8) / seconds / 1e9);
    });
  });
}

/** Writes `bytes` zero bytes, waiting for the socket to drain, so the payload is never buffered whole. */
async function send(socket: Socket, bytes: number): Promise<void> {
  for (let left = bytes; left > 0 && !socket.destroyed;) {
    const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
    left -= chunk.length;
    if (!socket.write(chunk)) await drained(socket);
  }
}

/** Resolves when the socket drains or closes (a transfer cut meanwhile must not wait forever). */
function drained(socket: Socket): Promise<void> {
  return new Promise((resume) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resume();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

// A kept TCP connection to one peer, opened from this agent's own address
// (--listen HOST) so that the peer sees the prober as the source. A sample is
// one frame's round trip on the established connection: the handshake is
// never timed. A timeout or error closes it; the next probe reconnects.

import { connect, type Socket } from 'node:net';
import { FRAME_BYTES, frame, sequenceOf } from './frame.ts';

export type ProbeResult = { readonly rttMs: number } | { readonly lost: string };

export class PeerConnection {
  readonly #host: string;
  readonly #port: number;
  readonly #localAddress: string | undefined;
  #socket: Socket | undefined;
  #sequence = 0;

  constructor(host: string, port: number, localAddress: string | undefined) {
    this.#host = host;
    this.#port = port;
    this.#localAddress = localAddress;
  }

  /** One round trip, or why it was lost, within timeoutMs (connecting included). */
  async probe(timeoutMs: number): Promise<ProbeResult> {
    const deadline = performance.now() + timeoutMs;
    try {
      const socket = this.#socket ?? (await this.#connect(timeoutMs));
      const left = deadline - performance.now();
      // Connecting can use up the whole timeout; a negative delay would make Node warn and wait 1 ms.
      if (left <= 0) return { lost: `connected, but no time left of ${Math.round(timeoutMs)}ms for an answer` };
      return { rttMs: await this.#roundTrip(socket, left) };
    } catch (error) {
      this.close();
      return { lost: (error as Error).message };
    }
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #connect(timeoutMs: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({
        host: this.#host,
        port: this.#port,
        noDelay: true,
        ...(this.#localAddress ? { localAddress: this.#localAddress } : {}),
      });
      const timer = setTimeout(() => fail(new Error('connect timed out')), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.once('error', fail);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', fail);
        socket.on('error', () => this.close());
        socket.on('close', () => {
          if (this.#socket === socket) this.#socket = undefined;
        });
        this.#socket = socket;
        resolve(socket);
      });
    });
  }

  #roundTrip(socket: Socket, timeoutMs: number): Promise<number> {
    const sequence = ++this.#sequence;
    return new Promise((resolve, reject) => {
      let received: Buffer = Buffer.alloc(0);
      const done = (error?: Error) => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('close', onClose);
        if (error) reject(error);
      };
      const onData = (chunk: Buffer) => {
        // First thing: whatever this callback does after it is not the path's time.
        const at = performance.now();
        received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
        while (received.length >= FRAME_BYTES) {
          const answer = received.subarray(0, FRAME_BYTES);
          received = received.subarray(FRAME_BYTES);
          if (sequenceOf(answer) === sequence) {
            const rttMs = at - sent;
            done();
            resolve(rttMs);
            return;
          }
        }
      };
      const onClose = () => done(new Error('connection closed'));
      const timer = setTimeout(() => done(new Error(`no answer within ${Math.round(timeoutMs)}ms`)), timeoutMs);
      socket.on('data', onData);
      socket.once('close', onClose);
      const sent = performance.now();
      socket.write(frame(sequence));
    });
  }
}

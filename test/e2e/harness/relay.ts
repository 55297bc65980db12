// A delaying TCP relay for the probe e2e test: it stands where a probe Pod's
// address and port say the agent is, forwards to the agent's real listener,
// and holds every chunk for half the round-trip delay chosen by the
// connection's source address (the prober's node, since agents send from
// their --listen address). Order is kept within a direction even when the
// delay changes mid-stream.

import { connect, createServer, type Socket } from 'node:net';

export interface Relay {
  readonly port: number;
  close(): Promise<void>;
}

export async function startRelay(
  host: string,
  target: { readonly host: string; readonly port: number },
  roundTripMs: (source: string) => number,
): Promise<Relay> {
  const open = new Set<Socket>();
  const server = createServer((inbound) => {
    const source = (inbound.remoteAddress ?? '').replace(/^::ffff:/, '');
    const upstream = connect({ host: target.host, port: target.port, noDelay: true });
    inbound.setNoDelay(true);
    for (const socket of [inbound, upstream]) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    }
    const half = () => roundTripMs(source) / 2;
    forward(inbound, upstream, half);
    forward(upstream, inbound, half);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: 0 }, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}

function forward(from: Socket, to: Socket, delayMs: () => number): void {
  let last = 0;
  from.on('data', (chunk: Buffer) => {
    const at = Math.max(performance.now() + delayMs(), last);
    last = at;
    setTimeout(() => to.destroyed || to.write(chunk), Math.max(0, at - performance.now()));
  });
  from.once('close', () => setTimeout(() => to.destroy(), Math.max(0, last - performance.now())));
  from.on('error', () => to.destroy());
}

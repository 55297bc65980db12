// The soak's attacker, in a process of its own so that its thousands of TLS
// handshakes do not delay the legitimate client whose latency the soak reports
// (bench/soak.ts). It holds what it can until the parent says stop, then
// reports how many connections it opened.
//
//   fork('bench/soak-attacker.ts', [JSON.stringify({ port, caFile, target })])

import { readFileSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface AttackTarget {
  /** Connections that never send a ClientHello. */
  readonly halfOpen: number;
  /** TLS connections that never send a request. */
  readonly idle: number;
  /** TLS connections left idle after one request, as a pooling client leaves them. */
  readonly keptAlive: number;
  /** Requests whose body never ends. */
  readonly slow: number;
}

/** The attacker opens at most this many connections in all, however fast the server drops them. */
const maxAttackConnections = 50_000;

const { port, caFile, target } = JSON.parse(process.argv[2] ?? '{}') as {
  port: number;
  caFile: string;
  target: AttackTarget;
};
const ca = readFileSync(caFile, 'utf8');
const budget = { opened: 0 };

/** Keeps `count` sockets of one kind open, replacing each the server drops, within the attack's bound. */
function hold(count: number, open: () => Socket): { stop(): void } {
  const sockets = new Set<Socket>();
  let stopped = false;
  const one = () => {
    if (stopped || budget.opened >= maxAttackConnections) return;
    budget.opened++;
    const socket = open();
    sockets.add(socket);
    socket.on('error', () => {});
    // A half-open socket sees the server's FIN as 'end' only; the attacker then lets go and reconnects.
    socket.once('end', () => socket.destroy());
    socket.once('close', () => {
      sockets.delete(socket);
      setTimeout(one, 50);
    });
  };
  for (let i = 0; i < count; i++) one();
  return {
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

const tls = () => tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
const afterHandshake = (text: string) => () => {
  const socket = tls();
  socket.once('secureConnect', () => socket.write(text));
  socket.resume();
  return socket;
};
const attack = [
  hold(target.halfOpen, () => tcpConnect({ host: '127.0.0.1', port, allowHalfOpen: true })),
  hold(target.idle, tls),
  hold(target.keptAlive, afterHandshake('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')),
  hold(
    target.slow,
    afterHandshake(
      'POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9000\r\n\r\n{',
    ),
  ),
];

process.once('message', () => {
  for (const part of attack) part.stop();
  process.send!({ opened: budget.opened }, () => process.exit(0));
});
// The soak failed or was stopped: the attacker goes with it.
process.once('disconnect', () => process.exit(0));

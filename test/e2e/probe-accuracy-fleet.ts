// The processes of test/e2e/probe-accuracy.test.ts, one role each (argv[2]):
// `agent I` a probe agent (the real listener and Prober) on 127.0.2.(I+1);
// `relays MS` a delaying relay (harness/relay.ts) in front of every agent, on
// 127.0.3.(I+1); `pinger` a plain TCP ping through the same relays, one at a
// time. Each reports over IPC.

import { connect, type Socket } from 'node:net';
import pino from 'pino';
import { Registry } from 'prom-client';
import { intervalBounds } from '../../src/probe/interval.ts';
import type { Peer } from '../../src/probe/peers.ts';
import { frame, FRAME_BYTES } from '../../src/probe/shell/frame.ts';
import { listen } from '../../src/probe/shell/listener.ts';
import { createProbeMetrics } from '../../src/probe/shell/metrics.ts';
import { Prober } from '../../src/probe/shell/prober.ts';
import { encodeSummary } from '../../src/probe/summary.ts';
import { startRelay } from './harness/relay.ts';

export const agentIp = (i: number) => `127.0.2.${i + 1}`;
export const relayIp = (i: number) => `127.0.3.${i + 1}`;
export const PINGER_IP = '127.0.4.1';
export const ZONES = 3;

const send = (message: unknown) => process.send!(message);
const role = process.argv[2];
if (role === 'agent') await agent(Number(process.argv[3]));
else if (role === 'relays') await relays(JSON.parse(process.argv[3]!) as number[], Number(process.argv[4]));
else if (role === 'pinger') pinger();

/** An agent as `topogate probe` runs one, at the e2e test's interval; its peers come over IPC. */
async function agent(i: number): Promise<void> {
  let peers: Peer[] = [];
  const prober = new Prober({
    localAddress: agentIp(i),
    bounds: intervalBounds(250),
    budget: 8,
    timeoutMs: 500,
    view: () => ({ peers, zone: `zone-${i % ZONES}` }),
    node: `node-${i}`,
    reportPeersWithinMs: 10_000,
    metrics: createProbeMetrics(new Registry()),
    log: pino({ level: 'silent' }),
  });
  const listener = await listen(agentIp(i), 0, (_request, response) => {
    const summary = prober.summary();
    response.end(summary ? encodeSummary(summary) : '{}');
  });
  process.on('message', (message: Peer[]) => {
    peers = message.filter((peer) => peer.node !== `node-${i}`);
    prober.start();
  });
  send(listener.port);
}

async function relays(ports: number[], roundTripMs: number): Promise<void> {
  const started = await Promise.all(
    ports.map((port, i) => startRelay(relayIp(i), { host: agentIp(i), port }, () => roundTripMs)),
  );
  send(started.map((relay) => relay.port));
}

/** Pings every relay in turn, one at a time, 10-30 ms apart; sends its samples when told to stop. */
function pinger(): void {
  const samples: number[] = [];
  let stopped = false;
  process.on('message', async (message: { ports: number[] } | 'stop') => {
    if (message === 'stop') {
      stopped = true;
      return;
    }
    const sockets = await Promise.all(message.ports.map((port, i) => open(relayIp(i), port)));
    for (let sequence = 0; !stopped; sequence++) {
      const socket = sockets[sequence % sockets.length]!;
      samples.push(await ping(socket, sequence));
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
    }
    for (const socket of sockets) socket.destroy();
    send(samples);
  });
}

function open(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, localAddress: PINGER_IP, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function ping(socket: Socket, sequence: number): Promise<number> {
  return new Promise((resolve) => {
    let received = 0;
    const onData = (chunk: Buffer) => {
      const at = performance.now();
      received += chunk.length;
      if (received < FRAME_BYTES) return;
      socket.off('data', onData);
      resolve(at - sent);
    };
    socket.on('data', onData);
    const sent = performance.now();
    socket.write(frame(sequence));
  });
}

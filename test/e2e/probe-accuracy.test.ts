// The probe reads what the path delivers: nine agents (as `topogate probe`
// runs them, each its own process) measure each other through relays that add
// a known round trip, while a plain TCP ping measures the same relays, one
// ping at a time, interleaved with the probes over the same run. The probes'
// median must agree with the ping's within 0.5 ms + 5 %. Both medians come
// from the same seconds on the same loaded machine, so the check is a
// comparison, not an absolute timing. (It found the probe reading ~2 ms over
// the ping at 4 ms: a round's probes were sent at once and the last answers of
// each burst read the queue behind the others as round trip.)

import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { merge, quantileOf } from '../../src/probe/histogram.ts';
import type { Peer } from '../../src/probe/peers.ts';
import { parseSummary } from '../../src/probe/summary.ts';
import { ZONES, agentIp, relayIp } from './probe-accuracy-fleet.ts';

const AGENTS = 9;
const ROUND_TRIP_MS = 4;
const RUN_MS = 20_000;
const FLEET = join(import.meta.dirname, 'probe-accuracy-fleet.ts');

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill();
});

function start(...args: string[]): ChildProcess {
  const child = fork(FLEET, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  return child;
}
const reply = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));

describe('the probe against a plain TCP ping on the same path', { timeout: 180_000 }, () => {
  it(`reads the median a ping reads through a ${ROUND_TRIP_MS} ms relay, with ${AGENTS} agents`, async () => {
    const agents = Array.from({ length: AGENTS }, (_, i) => start('agent', String(i)));
    const ports = await Promise.all(agents.map((child) => reply<number>(child)));
    const relayPorts = await reply<number[]>(start('relays', JSON.stringify(ports), String(ROUND_TRIP_MS)));
    const peers: Peer[] = relayPorts.map((port, i) => ({
      name: `probe-${i}`,
      node: `node-${i}`,
      ip: relayIp(i),
      port,
      zone: `zone-${i % ZONES}`,
    }));
    const summaries = () =>
      Promise.all(
        ports.map(async (port, i) => {
          const summary = parseSummary(await (await fetch(`http://${agentIp(i)}:${port}/summary`)).json());
          return typeof summary === 'object' ? summary : undefined;
        }),
      );
    const pinger = start('pinger');
    pinger.send({ ports: relayPorts });
    for (const child of agents) child.send(peers);
    // Every agent has probed every zone before the run is counted (a loaded machine starts processes slowly).
    const ready = async () => (await summaries()).every((summary) => summary?.zones.length === ZONES);
    for (let waited = 0; !(await ready()) && waited < 60_000; waited += 500) await sleep(500);
    await sleep(RUN_MS);
    pinger.send('stop');
    const pings = (await reply<number[]>(pinger)).sort((a, b) => a - b);

    const all = new Map<number, number>();
    for (const summary of await summaries()) for (const zone of summary?.zones ?? []) merge(all, zone.buckets);
    const probeMs = quantileOf(all, 0.5) ?? NaN;
    const pingMs = pings[pings.length >> 1]!;
    const figures = JSON.stringify({
      probeMs,
      pingMs,
      pings: pings.length,
      probes: [...all.values()].reduce((a, b) => a + b, 0),
    });
    console.log(`# probe accuracy: ${figures}`);
    assert.ok(pings.length >= 100, figures);
    assert.ok(Math.abs(probeMs - pingMs) <= 0.5 + 0.05 * pingMs, figures);
  });
});

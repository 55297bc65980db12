// The peer comparison's summary and report: an arm that did not run is null
// with its reason in the notes, the summary fields follow the arms, and a row
// a peer wins is said.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FabricNode } from '../../../../bench/placement/fabric.ts';
import type { ArmPlacement } from '../../../../bench/placement/fabric-summary.ts';
import { fabricResults } from '../../../../bench/placement/fabric-summary.ts';
import { goals, goalsTable } from '../../../../bench/placement/goals.ts';
import { peersTable, peerWins } from '../../../../bench/placement/peers-report.ts';
import { withPeers } from '../../../../bench/placement/summary.ts';
import type { ArmName } from '../../../../bench/placement/trace.ts';

const place = (zone: string, rack: string) => ({ zone, block: `${zone}b`, rack });
const node = (name: string, zone: string, rack: string, gpu = false): FabricNode => ({
  name,
  gpu,
  truth: place(zone, rack),
  labelled: place(zone, rack),
  cpuMilli: 8000,
  memoryBytes: 0,
  gpus: gpu ? 8 : 0,
});
const nodes = [node('a1', 'a', 'ra'), node('b1', 'b', 'rb'), node('g1', 'a', 'ga', true), node('g2', 'b', 'gb', true)];
const fabric = { seed: 1, nodes, byName: new Map(nodes.map((n) => [n.name, n])), tenants: [] };
const workloads = [
  { namespace: 's', name: 'front', replicas: 1, gang: false },
  { namespace: 's', name: 'cart', replicas: 2, gang: false },
  { namespace: 't', name: 'g', replicas: 2, gang: true },
];
const edges = [{ from: 's/front', to: 's/cart', callsPerSecond: 10, bytesPerCall: 100 }];

function run(cart: [string, string], gang: [string, string], seconds: number): ArmPlacement {
  const pods = [
    { name: 'f', workload: 's/front', node: 'a1', cpuMilli: 100, gpus: 0 },
    { name: 'c1', workload: 's/cart', node: cart[0], cpuMilli: 100, gpus: 0 },
    { name: 'c2', workload: 's/cart', node: cart[1], cpuMilli: 100, gpus: 0 },
    { name: 'g1', workload: 't/g', node: gang[0], cpuMilli: 100, gpus: 1 },
    { name: 'g2', workload: 't/g', node: gang[1], cpuMilli: 100, gpus: 1 },
  ];
  return {
    trace: { workloads, edges },
    pods,
    scheduled: 5,
    schedulingSeconds: seconds,
    wallSeconds: 1,
    notMutated: 0,
    admission: null,
  };
}

const runs = new Map<ArmName, ArmPlacement | string>([
  ['default', run(['b1', 'b1'], ['g1', 'g2'], 0.05)],
  ['upstreamTas', run(['b1', 'b1'], ['g1', 'g1'], 0.05)],
  ['topogate', run(['a1', 'b1'], ['g2', 'g2'], 0.1)],
]);
const peers = fabricResults(fabric, runs);

test('an arm that did not run is null, its reason in the notes', () => {
  assert.equal(peers.arms.kueueTas, null);
  assert.deepEqual(peers.notes, ['kueueTas: null: not run']);
  const failed = fabricResults(fabric, new Map([['upstreamTas', 'the API is off']]));
  assert.equal(failed.arms.upstreamTas, null);
  assert.ok(failed.notes.includes('upstreamTas: null: could not run: the API is off'));
});

test('the summary fields follow the arms', () => {
  const empty = {
    scenarios: [],
    summary: { rttReduction: null, crossZoneBytesReduction: null, pendingDefault: null, pendingTopogate: null },
  };
  const { summary } = withPeers(empty, peers);
  assert.equal(summary.nodes, 4);
  assert.equal(summary.haKept, 1);
  assert.deepEqual(summary.gangsInOneRack, { default: 0, upstreamTas: 1, kueueTas: null, topogate: 1 });
  assert.deepEqual(summary.fragmentation, { default: 0, upstreamTas: 1, kueueTas: null, topogate: 1 });
  assert.equal(summary.schedulerThroughputRatio, 0.5, '50 Pods per scheduler-second against 100');
  assert.equal(
    summary.fabricCrossZoneBytesReduction,
    1,
    'default: cart only in zone b, every call crosses; topogate: none',
  );
  assert.ok(summary.fabricRttReduction !== null && summary.fabricRttReduction > 0);
});

test('a row a peer wins is said, with both figures', () => {
  const wins = peerWins(peers);
  assert.ok(
    wins.includes('Pods bound per second of scheduler time: default scheduler 100, topogate 50'),
    wins.join('\n'),
  );
  assert.ok(!wins.some((w) => w.startsWith('gangs inside one rack')));
  const table = peersTable(peers);
  assert.match(table[0]!, /Kueue v0.17.0 TAS/);
  assert.ok(
    table.some((row) => row.startsWith('| gangs inside one rack | 0 % | 100 % | – | 100 % |')),
    table.join('\n'),
  );
});

test('each goal with its figure and met or missed; the gang goal against the best peer that ran', () => {
  const byGoal = new Map(goals(peers).map((g) => [g.goal.split(' ')[0], g]));
  // default: both cart replicas in zone b, every call crosses; topogate: one per zone, none crosses.
  assert.equal(byGoal.get('cross-zone')?.met, true);
  assert.match(
    byGoal.get('cross-zone')!.figure,
    /^−100\.0 %, haKept 1\.00; .*haKept 1\.0 sends on this trace: −100\.0 %$/,
  );
  assert.equal(byGoal.get('gangs')?.met, true, 'one gang whole in one rack, as upstream TAS');
  assert.match(byGoal.get('gangs')!.figure, /upstreamTas 100\.0 %/);
  assert.equal(byGoal.get('scheduler')?.met, false, '0.50 of the default');
  assert.equal(byGoal.get('scheduler')?.figure, '0.50');
  assert.equal(byGoal.get('no')?.met, true);
  const noPeer = fabricResults(fabric, new Map([...runs].filter(([arm]) => arm !== 'upstreamTas')));
  assert.equal(goals(noPeer).find((g) => g.goal.startsWith('gangs'))?.met, null, 'no peer ran: not measured');
  assert.match(goalsTable(peers).at(-1)!, /\| 0\.50 \| missed \|$/);
});

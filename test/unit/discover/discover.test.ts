// discover on synthetic fleets with a known zone > block > rack structure (bench/discover-fleet.ts): the
// issue's goal as assertions — for each true level some derived level with pair F1 ≥ 0.9, the wrong zone
// labels found with precision and recall ≥ 0.8, the degraded nodes found — and the properties the output
// promises (order-independent, nested groups, names valid as label values).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discover } from '../../../src/discover/discover.ts';
import type { Discovery } from '../../../src/discover/types.ts';
import { rttMatrix } from '../../../src/discover/matrix.ts';
import { averageLinkage } from '../../../src/discover/linkage.ts';
import { cuts } from '../../../src/discover/levels.ts';
import { type FleetOptions, type Fleet, mulberry32, pairF1, syntheticFleet } from '../../../bench/discover-fleet.ts';

const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

const fleets: readonly FleetOptions[] = [
  { seed: 1, zones: 4, blocksPerZone: 4, racksPerBlock: 4, nodesPerRack: 8, degraded: 4, wrongLabels: 0.05 },
  {
    seed: 2,
    zones: 2,
    blocksPerZone: 3,
    racksPerBlock: 4,
    nodesPerRack: 8,
    degraded: 3,
    degradedMs: 0.5,
    wrongLabels: 0.05,
    missing: 0.4,
  },
  {
    seed: 3,
    zones: 3,
    blocksPerZone: 4,
    racksPerBlock: 3,
    nodesPerRack: 6,
    degraded: 3,
    degradedMs: 10,
    wrongLabels: 0.05,
  },
  {
    seed: 4,
    zones: 6,
    blocksPerZone: 3,
    racksPerBlock: 3,
    nodesPerRack: 5,
    degraded: 2,
    wrongLabels: 0.05,
    missing: 0.3,
  },
];

const levelsOf = (discovery: Discovery, names: readonly string[]) =>
  Array.from({ length: discovery.levels }, (_, level) => names.map((name) => discovery.nodes[name]![level]!));

function score(fleet: Fleet, discovery: Discovery) {
  const found = levelsOf(discovery, fleet.names);
  const f1 = fleet.truth.map((truth) => Math.max(0, ...found.map((level) => pairF1(truth, level))));
  const flagged = discovery.mislabeled.map((entry) => entry.node);
  const right = flagged.filter((node) => fleet.wrong.has(node)).length;
  return { f1, precision: right / flagged.length, recall: right / fleet.wrong.size };
}

for (const options of fleets) {
  const shape = `${options.zones} zones × ${options.blocksPerZone} blocks × ${options.racksPerBlock} racks × ${options.nodesPerRack}`;
  test(`a fleet of ${shape} nodes (seed ${options.seed}): its three levels, wrong labels and degraded nodes`, () => {
    const fleet = syntheticFleet(options);
    assert.ok(fleet.wrong.size >= 2, 'the fleet has wrong labels to find');
    const discovery = discover(fleet.pairs, fleet.nodes);
    assert.equal(discovery.levels, 3);
    const { f1, precision, recall } = score(fleet, discovery);
    for (const [level, value] of f1.entries()) assert.ok(value >= 0.9, `true level ${level}: pair F1 ${value}`);
    assert.ok(precision >= 0.8 && recall >= 0.8, `wrong labels: precision ${precision}, recall ${recall}`);
    for (const entry of discovery.mislabeled) {
      assert.equal(entry.label, 'topology.kubernetes.io/zone');
      assert.equal(entry.measured, `zone-${entry.node.split('-')[1]}`, `${entry.node}: the zone its group carries`);
    }
    assert.deepEqual(discovery.degraded.map((entry) => entry.node).sort(), [...fleet.degraded].sort());
    const [zones, blocks, racks] = discovery.tiers.map((tier) => tier.groups);
    assert.equal(zones, options.zones);
    assert.equal(blocks, options.zones * options.blocksPerZone);
    assert.ok(racks! >= blocks! * options.racksPerBlock, `${racks} racks`);
    for (const tier of discovery.tiers)
      assert.ok(tier.confidence > 0.95 && tier.separation > 1.25, JSON.stringify(tier));
    assert.deepEqual(discovery.zoneLabels?.level, 0);
  });
}

test('degraded nodes are found with their offsets, and taking those out keeps their racks whole', () => {
  const fleet = syntheticFleet({ seed: 5, zones: 2, blocksPerZone: 2, racksPerBlock: 3, nodesPerRack: 6, degraded: 3 });
  const rackOf = (node: string) => node.split('-').slice(0, 4).join('-');
  const corrected = discover(fleet.pairs);
  assert.deepEqual(corrected.degraded.map((entry) => entry.node).sort(), [...fleet.degraded].sort());
  for (const entry of corrected.degraded) assert.ok(Math.abs(entry.offsetMs - 3) < 0.1, JSON.stringify(entry));
  const finest = (discovery: Discovery, node: string) => discovery.nodes[node]![discovery.levels - 1];
  const rackMate = (node: string) => fleet.names.find((other) => other !== node && rackOf(other) === rackOf(node))!;
  for (const node of fleet.degraded) assert.equal(finest(corrected, node), finest(corrected, rackMate(node)), node);
  // Uncorrected, a degraded node is far from everything: its rack would lose it.
  const matrix = rttMatrix(fleet.pairs);
  const raw = cuts(averageLinkage(matrix.rtt, matrix.size), matrix.rtt, matrix.size)[0]!;
  const slot = (node: string) => matrix.names.indexOf(node);
  for (const node of fleet.degraded) assert.notEqual(raw.group[slot(node)], raw.group[slot(rackMate(node))], node);
});

test('a fleet without structure (one rack) has no levels', () => {
  const fleet = syntheticFleet({ seed: 6, zones: 1, blocksPerZone: 1, racksPerBlock: 1, nodesPerRack: 40 });
  const discovery = discover(fleet.pairs, fleet.nodes);
  assert.equal(discovery.levels, 0);
  assert.deepEqual(discovery.nodes['node-0-0-0-0'], []);
  assert.deepEqual(discovery.mislabeled, []);
});

test('the answer does not depend on the order of the pairs, nor on which way round a pair is given', () => {
  const fleet = syntheticFleet({ seed: 7, zones: 3, blocksPerZone: 2, racksPerBlock: 3, nodesPerRack: 4 });
  const random = mulberry32(99);
  const shuffled = fleet.pairs
    .map((pair) => ({ pair: random() < 0.5 ? pair : { a: pair.b, b: pair.a, rttMs: pair.rttMs }, key: random() }))
    .sort((x, y) => x.key - y.key)
    .map(({ pair }) => pair);
  assert.deepEqual(discover(shuffled), discover(fleet.pairs));
});

test('groups nest, one name is one group, and names are valid label values', () => {
  const fleet = syntheticFleet({ seed: 8, zones: 3, blocksPerZone: 3, racksPerBlock: 3, nodesPerRack: 5 });
  const discovery = discover(fleet.pairs);
  const levels = levelsOf(discovery, fleet.names);
  for (let level = 1; level < levels.length; level++) {
    const parent = new Map<string, string>();
    levels[level]!.forEach((group, slot) => {
      const coarser = levels[level - 1]![slot]!;
      assert.equal(parent.get(group) ?? coarser, coarser, `${group} lies in one group of level ${level - 1}`);
      parent.set(group, coarser);
    });
  }
  const all = levels.flatMap((level) => [...new Set(level)]);
  assert.equal(new Set(all).size, all.length, 'no name names groups at two levels');
  for (const name of all) assert.match(name, LABEL_VALUE);
  assert.deepEqual(
    discovery.tiers.map((tier) => tier.groups),
    levels.map((level) => new Set(level).size),
  );
});

test('a pair measured twice counts as the mean of its round trips; NodeList nodes without pairs are unmeasured', () => {
  const fleet = syntheticFleet({ seed: 9, zones: 2, blocksPerZone: 2, racksPerBlock: 2, nodesPerRack: 5 });
  const [first, ...rest] = fleet.pairs;
  const twice = [
    { ...first!, rttMs: first!.rttMs - 0.01 },
    ...rest,
    { a: first!.b, b: first!.a, rttMs: first!.rttMs + 0.01 },
  ];
  const discovery = discover(twice, [...fleet.nodes, { name: 'lonely', zone: 'zone-0' }]);
  assert.deepEqual(discovery.nodes, discover(fleet.pairs).nodes);
  assert.equal(discovery.pairs.measured, fleet.pairs.length);
  assert.deepEqual(discovery.unmeasured, ['lonely']);
});

test('zone labels that match no level (one value per node) name no node mislabeled', () => {
  const fleet = syntheticFleet({ seed: 10, zones: 2, blocksPerZone: 2, racksPerBlock: 2, nodesPerRack: 5 });
  const discovery = discover(
    fleet.pairs,
    fleet.nodes.map((node) => ({ name: node.name, zone: node.name })),
  );
  assert.ok(discovery.zoneLabels !== undefined && discovery.zoneLabels.agreement < 0.5);
  assert.deepEqual(discovery.mislabeled, []);
});

test('zones that merely differ in distance are not a level; regions of zones are', () => {
  // Seed 1000 draws zone 0 about 2.2 ms from the others, which are 1.2–1.45 ms apart: no region in it.
  const uneven = syntheticFleet({ seed: 1000, zones: 4, blocksPerZone: 3, racksPerBlock: 2, nodesPerRack: 5 });
  assert.equal(discover(uneven.pairs).levels, 3);
  const [near, far] = [1, 2.5];
  const zoneRttMs = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => (i === j ? 0 : i < 2 === j < 2 ? near : far)));
  const regions = syntheticFleet({
    seed: 11,
    zones: 4,
    blocksPerZone: 3,
    racksPerBlock: 2,
    nodesPerRack: 5,
    zoneRttMs,
  });
  const discovery = discover(regions.pairs);
  assert.equal(discovery.levels, 4);
  const names = regions.names;
  const region = names.map((name) => (Number(name.split('-')[1]) < 2 ? 'a' : 'b'));
  assert.equal(pairF1(region, levelsOf(discovery, names)[0]!), 1);
});

test('outlier pairs (1 % of the pairs 10× off, 0.5 % 50×) are left out and change no level', () => {
  const options = {
    seed: 3,
    zones: 4,
    blocksPerZone: 4,
    racksPerBlock: 3,
    nodesPerRack: 6,
    degraded: 2,
    wrongLabels: 0.05,
  };
  for (const [share, factor] of [
    [0.01, 10],
    [0.005, 50],
  ] as const) {
    const fleet = syntheticFleet(options);
    const random = mulberry32(5);
    let injected = 0;
    const pairs = fleet.pairs.map((pair) =>
      random() < share ? (injected++, { ...pair, rttMs: pair.rttMs * factor }) : pair,
    );
    const discovery = discover(pairs, fleet.nodes);
    assert.equal(discovery.levels, 3, `${share} × ${factor}`);
    const { f1, precision, recall } = score(fleet, discovery);
    for (const value of f1) assert.ok(value >= 0.9, `${share} × ${factor}: pair F1 ${f1}`);
    assert.ok(precision >= 0.8 && recall >= 0.8, `${share} × ${factor}: ${precision}, ${recall}`);
    assert.ok(discovery.pairs.outliers >= injected, `${discovery.pairs.outliers} of ${injected} outliers left out`);
    assert.ok(discovery.pairs.outliers <= 1.2 * injected, `${discovery.pairs.outliers}: few good pairs lost`);
  }
});

test('without zone labels there is nothing to match: no zoneLabels, no mislabeled', () => {
  const fleet = syntheticFleet({ seed: 12, zones: 2, blocksPerZone: 2, racksPerBlock: 2, nodesPerRack: 5 });
  const discovery = discover(
    fleet.pairs,
    fleet.nodes.map((node) => ({ name: node.name, zone: undefined })),
  );
  assert.equal(discovery.levels, 3);
  assert.equal(discovery.zoneLabels, undefined);
  assert.deepEqual(discovery.mislabeled, []);
});

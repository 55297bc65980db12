import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeFacts, PlacedPod } from '../../../../bench/placement/metrics.ts';
import { placementSection, worseWithTopogate } from '../../../../bench/placement/report.ts';
import type { RunPlacement } from '../../../../bench/placement/summary.ts';
import { placementResults } from '../../../../bench/placement/summary.ts';

// zone-a↔zone-b is 0.55 ms in the benchmark's network, 0.1 ms inside a zone.
const facts = new Map<string, NodeFacts>([
  ['n-a', { name: 'n-a', zone: 'zone-a' }],
  ['n-b', { name: 'n-b', zone: 'zone-b' }],
]);

function run(seed: number, mode: 'default' | 'topogate', web1?: string, web2?: string): RunPlacement {
  const pods: PlacedPod[] = [
    { name: 'web-1', workload: 'web', node: web1, requests: {} },
    { name: 'web-2', workload: 'web', node: web2, requests: {} },
    { name: 'db-1', workload: 'db', node: 'n-a', requests: {} },
  ];
  const scenario = {
    pods,
    edges: [{ from: 'web', to: 'db', callsPerSecond: 10, bytesPerCall: 100 }],
    gpuNeeds: [],
    gangs: [],
  };
  return {
    seed,
    mode,
    facts,
    scenarios: [{ name: 'shop', scenario, notMutated: 0, warned: 0, deferred: 0, gated: 0 }],
  };
}

// Seed 1: default splits web over a and b (mean 0.325 ms, 500 B/s across), topogate puts it all in a.
// Seed 2: default has web all in b (0.55 ms, 1000 B/s), topogate binds one web in a and leaves one Pending.
const results = placementResults([
  run(1, 'default', 'n-a', 'n-b'),
  run(1, 'topogate', 'n-a', 'n-a'),
  run(2, 'default', 'n-b', 'n-b'),
  run(2, 'topogate', 'n-a', undefined),
]);

test('per scenario: min, median and max over the seeds, each seed’s value kept', () => {
  const shop = results.scenarios[0]!;
  assert.equal(shop.name, 'shop');
  assert.deepEqual(
    shop.default.meanRttMs?.bySeed.map((v) => v?.toFixed(4)),
    ['0.3250', '0.5500'],
  );
  assert.equal(shop.default.meanRttMs?.median.toFixed(4), '0.4375');
  assert.equal(shop.default.crossZoneBytesPerSecond?.min, 500);
  assert.equal(shop.default.crossZoneBytesPerSecond?.max, 1000);
  assert.equal(shop.topogate.meanRttMs?.max.toFixed(4), '0.1000');
  assert.deepEqual(shop.topogate.pendingShare?.bySeed, [0, 1 / 3]);
});

test('the summary: the median over the seeds of each whole run’s reduction and Pending share', () => {
  const expected = (1 - 0.1 / 0.325 + (1 - 0.1 / 0.55)) / 2;
  assert.equal(results.summary.rttReduction?.toFixed(6), expected.toFixed(6));
  assert.equal(results.summary.crossZoneBytesReduction, 1);
  assert.equal(results.summary.pendingDefault, 0);
  assert.equal(results.summary.pendingTopogate?.toFixed(6), (1 / 6).toFixed(6));
});

test('what came out worse with topogate is listed, what came out better is not', () => {
  const worse = worseWithTopogate(results);
  assert.deepEqual(worse, [
    'shop: Pods left Pending 0 % without topogate, 17 % with it',
    'shop: workloads (2+ replicas) across 2+ zones 50 % without topogate, 0 % with it',
  ]);
  const section = placementSection(results, {
    seeds: 2,
    seconds: 9,
    quick: false,
    pods: [3, 3],
    settleSeconds: [1, 2],
    gangRoom: [],
    gangs: 0,
  });
  assert.match(section, /\| mean RTT per call \(ms, call-weighted\) \| 0\.438 \(0\.325–0\.550\) \| 0\.100 \|/);
  assert.match(section, /call-weighted mean RTT −76 %, cross-zone bytes −100 %/);
  for (const line of worse) assert.ok(section.includes(`- ${line}`), line);
});

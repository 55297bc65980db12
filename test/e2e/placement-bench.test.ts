// The placement benchmark's smoke run (one seed, the quick scenarios) on the
// real control plane: the default run's Pods meet no policy, the topogate
// run's latency-critical clients are bound in the etcd leader's zone, and the
// results have the shape bench/results/placement.json promises.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Run } from '../../bench/placement/cluster-run.ts';
import { runOnCluster } from '../../bench/placement/cluster-run.ts';
import { parseServiceGraph } from '../../bench/placement/graph.ts';
import { runPlacements } from '../../bench/placement/main.ts';
import { placementResults } from '../../bench/placement/summary.ts';
import type { Cluster } from './harness/cluster.ts';
import { sharedCluster } from './harness/shared.ts';
import { repoRoot } from './harness/versions.ts';

describe('npm run bench:placement -- --quick, on the real control plane', { timeout: 300_000 }, () => {
  let cluster: Cluster;
  let runs: Run[];

  before(async () => {
    cluster = await sharedCluster('placement-bench');
    const graph = parseServiceGraph(
      JSON.parse(readFileSync(join(repoRoot, 'bench/data/online-boutique.json'), 'utf8')),
    );
    runs = await runOnCluster({ cluster, seeds: [1], graph, quick: true, log: () => undefined });
  });
  after(async () => {
    await cluster?.stop();
  });

  test('both runs placed every Pod of every scenario; only the topogate run met policies', () => {
    assert.deepEqual(
      runs.map((run) => run.mode),
      ['default', 'topogate'],
    );
    for (const run of runs)
      for (const scenario of run.scenarios) {
        assert.equal(scenario.pods.length, scenario.scenario.pods, `${run.mode} ${scenario.scenario.name}`);
        const applied = scenario.records.filter((r) => r.topogate['topogate.dev/policies']).length;
        if (run.mode === 'default') assert.equal(applied, 0, scenario.scenario.name);
      }
    const topogate = runs[1]!.scenarios.flatMap((s) => s.records);
    assert.ok(
      topogate.some((r) => r.topogate['topogate.dev/policies']),
      'no Pod of the topogate run met a policy',
    );
  });

  test('with topogate, the clients that topogate decided are bound in the etcd leader’s zone', () => {
    const run = runs[1]!;
    const clients = run.scenarios.find((s) => s.scenario.name === 'control-plane-clients')!;
    const decided = clients.records.filter((r) => r.topogate['topogate.dev/policies'] === 'operators-near-etcd-leader');
    assert.ok(decided.length > 0, JSON.stringify(clients.records));
    for (const record of decided)
      assert.equal(run.fleet.facts.get(record.node ?? '')?.zone, run.fleet.controlPlaneZone, record.name);
  });

  test('the results have the shape of bench/results/placement.json', () => {
    const results = placementResults(runPlacements(runs));
    assert.deepEqual(Object.keys(results).sort(), ['scenarios', 'summary']);
    assert.deepEqual(Object.keys(results.summary).sort(), [
      'crossZoneBytesReduction',
      'pendingDefault',
      'pendingTopogate',
      'rttReduction',
    ]);
    assert.deepEqual(
      results.scenarios.map((s) => s.name),
      ['online-boutique', 'gpu-training', 'control-plane-clients'],
    );
    for (const scenario of results.scenarios)
      for (const mode of [scenario.default, scenario.topogate]) assert.equal(typeof mode.meanRttMs?.median, 'number');
  });
});

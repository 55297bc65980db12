// A rule packs and spreads by a measured level as by any label: the label export's tier labels on the
// nodes, a SchedulingPolicy naming them, and the webhook's own decision (what docs/discover.md shows).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discover } from '../../../src/discover/discover.ts';
import { labelObjects } from '../../../src/discover/export/labels.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { syntheticFleet } from '../../../bench/discover-fleet.ts';
import { node, NOW, OPTIONS, policy } from '../policy/engine-cluster.ts';
import { replica } from '../policy/pack-cluster.ts';

const TIERS = ['topogate.dev/tier-3', 'topogate.dev/tier-2', 'topogate.dev/tier-1'];

test('pack by topogate.dev/tier-1 keeps a workload in one measured rack; spread by tier-3 across measured zones', () => {
  const fleet = syntheticFleet({ seed: 41, zones: 2, blocksPerZone: 2, racksPerBlock: 2, nodesPerRack: 4 });
  const discovery = discover(fleet.pairs);
  assert.equal(discovery.levels, 3);
  const nodes = labelObjects(discovery).map(({ metadata }) => node(metadata.name, metadata.labels));
  const compiled = compile(
    [
      policy('gang', {
        pack: { levels: TIERS, level: 'topogate.dev/tier-1', mode: 'Required' },
        spread: [{ topologyKey: 'topogate.dev/tier-3', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }],
      }),
    ],
    buildSnapshot(nodes, { now: NOW }),
  );
  const picked = new Set<string>();
  for (let index = 0; index < 3; index++) {
    const decision = decide(podRequest(replica('train', '1', 3, index), 'ml'), compiled, OPTIONS);
    const affinity = decision.patch.find((op) => op.path === '/spec/affinity') as { value?: any } | undefined;
    const [expression] = affinity?.value.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
      .nodeSelectorTerms[0].matchExpressions as { key: string; operator: string; values: string[] }[];
    assert.equal(expression?.key, 'topogate.dev/tier-1');
    picked.add(expression!.values[0]!);
    const spread = decision.patch.find((op) => op.path === '/spec/topologySpreadConstraints') as
      { value?: { topologyKey: string }[] } | undefined;
    assert.deepEqual(
      spread?.value?.map((constraint) => constraint.topologyKey),
      ['topogate.dev/tier-3'],
    );
  }
  assert.equal(picked.size, 1, 'every replica in the same measured rack');
  const rack = [...picked][0]!;
  const members = Object.entries(discovery.nodes).filter(([, groups]) => groups[2] === rack);
  assert.equal(new Set(members.map(([name]) => name.split('-').slice(0, 4).join('-'))).size, 1, 'a true rack');
});

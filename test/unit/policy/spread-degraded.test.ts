// spread with avoidDegradedNodes: a zone spread counts domains by the nodes'
// labels, so a node whose measured RTT belies its zone label is left out:
// required with DoNotSchedule, preferred with ScheduleAnyway, and not at all
// without the option or without a degraded node.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podRequest } from '../../../src/kube/podFacts.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { Decision, SpreadRule } from '../../../src/policy/types.ts';
import { TopologyBuilder } from '../../../src/topology/builder.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';
import { node, NOW, OPTIONS, pod, policy } from './engine-cluster.ts';

const ZONE = 'topology.kubernetes.io/zone';
const NOT_B1 = { key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['b1'] };

function decideWith(rule: SpreadRule, degraded: readonly string[] = ['b1']): Decision {
  const builder = new TopologyBuilder({ sources: ['nodes', 'networkTopologies'] });
  builder.replace(
    'nodes',
    [node('a1', { [ZONE]: 'za' }), node('b1', { [ZONE]: 'zb' }), node('b2', { [ZONE]: 'zb' })],
    NOW,
  );
  const network: KubeObject = networkTopology({
    domainLabel: ZONE,
    links: [{ from: 'za', to: 'zb', rttMs: 0.5 }],
    status: {
      observedAt: new Date(NOW - 1000).toISOString(),
      links: [{ from: 'za', to: 'zb', rttMs: 0.5, samples: 100 }],
      degradedNodes: degraded.map((name) => ({ name, rttMs: 0.5, zoneRttMs: 0.1 })),
    },
  });
  builder.replace('networkTopologies', [network], NOW);
  const compiled = compile([policy('ha', { spread: [rule] })], builder.publish());
  return decide(
    podRequest(pod({ containers: [{ name: 'c' }] }, { name: 'web-1', labels: { app: 'web' } }), 'ns'),
    compiled,
    OPTIONS,
  );
}

const added = (decision: Decision) => {
  const write = decision.patch.find((op) => op.path === '/spec/affinity');
  const value = (write && 'value' in write ? write.value : undefined) as
    { nodeAffinity?: Record<string, unknown> } | undefined;
  return {
    required: value?.nodeAffinity?.['requiredDuringSchedulingIgnoredDuringExecution'],
    preferred: value?.nodeAffinity?.['preferredDuringSchedulingIgnoredDuringExecution'],
    spread: decision.patch.some((op) => op.path.startsWith('/spec/topologySpreadConstraints')),
  };
};

const rule = (whenUnsatisfiable: SpreadRule['whenUnsatisfiable'], avoidDegradedNodes?: boolean): SpreadRule => ({
  topologyKey: ZONE,
  maxSkew: 1,
  whenUnsatisfiable,
  ...(avoidDegradedNodes !== undefined && { avoidDegradedNodes }),
});

test('DoNotSchedule: the degraded node is left out by required node affinity, beside the constraint', () => {
  assert.deepEqual(added(decideWith(rule('DoNotSchedule', true))), {
    required: { nodeSelectorTerms: [{ matchExpressions: [NOT_B1] }] },
    preferred: undefined,
    spread: true,
  });
});

test('ScheduleAnyway: the degraded node is left out by a preference', () => {
  assert.deepEqual(added(decideWith(rule('ScheduleAnyway', true))), {
    required: undefined,
    preferred: [{ weight: 100, preference: { matchExpressions: [NOT_B1] } }],
    spread: true,
  });
});

test('without the option, or without a degraded node, only the constraint is added', () => {
  const constraintOnly = { required: undefined, preferred: undefined, spread: true };
  assert.deepEqual(added(decideWith(rule('DoNotSchedule'))), constraintOnly);
  assert.deepEqual(added(decideWith(rule('DoNotSchedule', true), [])), constraintOnly);
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Decision } from '../../../src/policy/types.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { decideIn, NOW, node, pod, policy } from './engine-cluster.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

const ZONE = 'topology.kubernetes.io/zone';

/** Zones a, b, c, d; a measured network whose p99 differs from its median; node a-2 degraded. */
function measured(): KubeObject[] {
  return [
    node('a-1', { [ZONE]: 'a' }),
    node('a-2', { [ZONE]: 'a' }),
    node('b-1', { [ZONE]: 'b' }),
    node('c-1', { [ZONE]: 'c' }),
    node('d-1', { [ZONE]: 'd' }),
    networkTopology({
      domainLabel: ZONE,
      links: [
        { from: 'a', to: 'b', rttMs: 5, bandwidthGbps: 100 },
        { from: 'a', to: 'c', rttMs: 5, bandwidthGbps: 25 },
      ],
      status: {
        observedAt: new Date(NOW - 1000).toISOString(),
        links: [
          { from: 'a', to: 'b', rttMs: 0.5, rttP99Ms: 3, samples: 400 },
          { from: 'a', to: 'c', rttMs: 0.8, rttP99Ms: 1.2, samples: 400 },
          { from: 'a', to: 'd', rttMs: 4, rttP99Ms: 9, samples: 400 },
        ],
        degradedNodes: [{ name: 'a-2', rttMs: 4.1, zoneRttMs: 0.2 }],
      },
    }),
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'wh-1', namespace: 'data', labels: { 'kubernetes.io/service-name': 'warehouse' } },
      endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'a-1', conditions: { ready: true } }],
    },
  ];
}

function required(decision: Decision): any[] {
  return affinityOf(decision).nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
    .matchExpressions;
}

function affinityOf(decision: Decision): any {
  return (decision.patch.find((op) => op.path === '/spec/affinity') as { value?: unknown } | undefined)?.value;
}

describe('latency percentile and degraded nodes', () => {
  test('p50 reads status rttMs, p99 reads rttP99Ms', () => {
    const rule = (percentile: 'p50' | 'p99') =>
      policy('near', { latency: { to: { zone: 'a' }, maxRttMs: 2, mode: 'Required', percentile } });
    assert.deepEqual(required(decideIn([rule('p50')], pod(), 'default', measured()))[0].values, ['a', 'b', 'c']);
    assert.deepEqual(required(decideIn([rule('p99')], pod(), 'default', measured()))[0].values, ['a', 'c']);
  });

  test('avoidDegradedNodes leaves the nodes of status.degradedNodes out, by hostname', () => {
    const rule = { to: { zone: 'a' }, maxRttMs: 1, mode: 'Required' as const, avoidDegradedNodes: true };
    const decision = decideIn([policy('near', { latency: rule })], pod(), 'default', measured(), { explain: true });
    assert.deepEqual(required(decision), [
      { key: ZONE, operator: 'In', values: ['a', 'b', 'c'] },
      { key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['a-2'] },
    ]);
    const trace = decision.trace as any;
    assert.equal(trace.policies[0].rules[0].nodesAfter, 3);
    const preferred = decideIn(
      [policy('near', { latency: { ...rule, mode: 'Preferred' } })],
      pod(),
      'default',
      measured(),
    );
    const terms = affinityOf(preferred).nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution;
    assert.deepEqual(terms[0], {
      weight: 100,
      preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['a-2'] }] },
    });
    const without = decideIn(
      [policy('near', { latency: { ...rule, avoidDegradedNodes: false } })],
      pod(),
      'default',
      measured(),
    );
    assert.equal(required(without).length, 1);
  });
});

describe('bandwidth', () => {
  const rule = (minGbps: number, mode: 'Required' | 'Preferred') =>
    policy('data', { bandwidth: { to: { service: 'data/warehouse' }, minGbps, mode } });

  test('Required keeps the target zone and the zones with enough bandwidth to it; unknown bandwidth never qualifies', () => {
    assert.deepEqual(required(decideIn([rule(50, 'Required')], pod(), 'default', measured())), [
      { key: ZONE, operator: 'In', values: ['a', 'b'] },
    ]);
    assert.deepEqual(required(decideIn([rule(20, 'Required')], pod(), 'default', measured()))[0].values, [
      'a',
      'b',
      'c',
    ]);
    // d has a measured RTT but no bandwidth: never, whatever the floor.
    assert.deepEqual(required(decideIn([rule(0, 'Required')], pod(), 'default', measured()))[0].values, [
      'a',
      'b',
      'c',
    ]);
    assert.deepEqual(required(decideIn([rule(1000, 'Required')], pod(), 'default', measured()))[0].values, ['a']);
  });

  test('Preferred weighs the target zone 100 and the others by bandwidth', () => {
    const decision = decideIn([rule(20, 'Preferred')], pod(), 'default', measured());
    const terms = affinityOf(decision).nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution;
    assert.deepEqual(
      terms.map((term: any) => [term.weight, term.preference.matchExpressions[0].values]),
      [
        [100, ['a']],
        [99, ['b']],
        [25, ['c']],
      ],
    );
  });

  test('a stale NetworkTopology degrades Required to Preferred with a warning', () => {
    const decision = decideIn([rule(50, 'Required')], pod(), 'default', measured(), { now: NOW + 3_600_000 });
    assert.ok(decision.warnings.some((w) => w.includes('bandwidth degraded from Required to Preferred')));
    const affinity = affinityOf(decision);
    assert.equal(affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, undefined);
  });

  test('an unknown target drops the rule with a warning', () => {
    const decision = decideIn(
      [policy('data', { bandwidth: { to: { service: 'data/none' }, minGbps: 1, mode: 'Required' } })],
      pod(),
      'default',
      measured(),
    );
    assert.deepEqual(decision.patch, []);
    assert.ok(decision.warnings.some((w) => w.includes('bandwidth dropped: service data/none')));
  });
});

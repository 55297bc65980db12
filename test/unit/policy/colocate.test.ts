// The colocate rule (zone-complete co-location): a callee's Pod prefers the
// callers' zones that hold no replica of it yet, then the callers' zones, then
// the callers' racks; it follows binds and Pods held to a zone; without a
// bound caller it is dropped; Required keeps the Pod in those zones.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podRequest } from '../../../src/kube/podFacts.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { ColocateRule, Decision } from '../../../src/policy/types.ts';
import { parsePolicies } from '../../../src/policy/parse.ts';
import { ASSUMED_TTL_MS } from '../../../src/topology/assumed.ts';
import { TopologyBuilder } from '../../../src/topology/builder.ts';
import { admittedUsage } from '../../../src/topology/read/pod-usage.ts';
import { node, NOW, OPTIONS, policy } from './engine-cluster.ts';
import { bound, RACK, replica, ZONE } from './pack-cluster.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

const RULE: ColocateRule = { callers: ['frontend'], topologyKey: ZONE, within: [RACK], mode: 'Preferred' };

/** Two zones of two racks, one 32-cpu node each. */
function fabric(): KubeObject[] {
  return [
    node('a1', { [ZONE]: 'za', [RACK]: 'ra1' }),
    node('a2', { [ZONE]: 'za', [RACK]: 'ra2' }),
    node('b1', { [ZONE]: 'zb', [RACK]: 'rb1' }),
    node('b2', { [ZONE]: 'zb', [RACK]: 'rb2' }),
  ];
}

/** What a probe publishes when b1's RTT to its zone's peers belies its label. */
const NETWORK: KubeObject = networkTopology({
  domainLabel: ZONE,
  links: [{ from: 'za', to: 'zb', rttMs: 0.5 }],
  status: {
    observedAt: new Date(NOW - 1000).toISOString(),
    links: [{ from: 'za', to: 'zb', rttMs: 0.5, samples: 100 }],
    degradedNodes: [{ name: 'b1', rttMs: 0.5, zoneRttMs: 0.1 }],
  },
});

function setUp(rule: ColocateRule = RULE, pods: readonly KubeObject[] = []) {
  const builder = new TopologyBuilder({ sources: ['nodes', 'pods', 'networkTopologies'] });
  builder.replace('nodes', fabric(), NOW);
  builder.replace('networkTopologies', [NETWORK], NOW);
  builder.replace('pods', [...pods], NOW);
  const compiled = compile(
    [policy('near-callers', { colocate: rule }, { match: { namespaces: ['ml'] } })],
    builder.publish(),
  );
  const decideFor = (deployment: string, index = 0) =>
    decide(podRequest(replica(deployment, '1', undefined, index), 'ml'), compiled, {
      ...OPTIONS,
      occupancy: builder.occupancy(),
    });
  return { builder, decideFor };
}

/** A Pod of Deployment `deployment` bound to `nodeName` (pack-cluster's owner naming: <name>-<hash>). */
const boundOf = (name: string, nodeName: string, deployment: string) => bound(name, nodeName, '1', `${deployment}-5f7`);

function affinity(decision: Decision): { preferred?: unknown; required?: unknown } {
  const op = decision.patch.find((o) => o.path.endsWith('/affinity') || o.path.includes('nodeAffinity'));
  const value = (op as { value?: { nodeAffinity?: Record<string, unknown> } } | undefined)?.value;
  const nodeAffinity = (value?.nodeAffinity ?? value) as Record<string, unknown> | undefined;
  return {
    preferred: nodeAffinity?.['preferredDuringSchedulingIgnoredDuringExecution'],
    required: nodeAffinity?.['requiredDuringSchedulingIgnoredDuringExecution'],
  };
}

const term = (weight: number, key: string, values: string[]) => ({
  weight,
  preference: { matchExpressions: [{ key, operator: 'In', values }] },
});

test('the callers’ zone without a replica weighs most, then the callers’ racks', () => {
  const { decideFor } = setUp(RULE, [boundOf('f1', 'a1', 'frontend'), boundOf('f2', 'b2', 'frontend')]);
  assert.deepEqual(affinity(decideFor('cart')).preferred, [
    term(100, ZONE, ['za', 'zb']),
    term(30, RACK, ['ra1', 'rb2']),
  ]);
});

test('a zone that holds a replica already weighs less than one that lacks it', () => {
  const { builder, decideFor } = setUp(RULE, [boundOf('f1', 'a1', 'frontend'), boundOf('f2', 'b2', 'frontend')]);
  builder.apply('pods', 'ADDED', boundOf('c1', 'a2', 'cart'), NOW);
  assert.deepEqual(affinity(decideFor('cart', 1)).preferred, [
    term(100, ZONE, ['zb']),
    term(50, ZONE, ['za', 'zb']),
    term(30, RACK, ['ra1', 'rb2']),
  ]);
  builder.apply('pods', 'ADDED', boundOf('c2', 'b1', 'cart'), NOW);
  assert.deepEqual(affinity(decideFor('cart', 2)).preferred, [
    term(50, ZONE, ['za', 'zb']),
    term(30, RACK, ['ra1', 'rb2']),
  ]);
});

test('a replica held to a zone but not bound yet counts there', () => {
  const held: KubeObject = {
    ...boundOf('c1', '', 'cart'),
    spec: {
      nodeSelector: { [ZONE]: 'zb' },
      containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }],
    },
    status: { phase: 'Pending' },
  };
  const { decideFor } = setUp(RULE, [boundOf('f1', 'a1', 'frontend'), boundOf('f2', 'b2', 'frontend'), held]);
  assert.deepEqual((affinity(decideFor('cart', 1)).preferred as unknown[])[0], term(100, ZONE, ['za']));
});

test('without a bound caller the rule is dropped, with the reason', () => {
  const { decideFor } = setUp();
  const decision = decideFor('cart');
  assert.equal(affinity(decision).preferred, undefined);
  assert.match(JSON.stringify(decision.warnings), /no Pod of the callers \[frontend\] is bound/);
});

test('Required keeps the Pod in the callers’ zones that lack it', () => {
  const { decideFor } = setUp({ ...RULE, within: undefined, mode: 'Required' }, [
    boundOf('f1', 'b2', 'frontend'),
    boundOf('c1', 'a1', 'cart'),
  ]);
  assert.deepEqual(affinity(decideFor('cart', 1)).required, {
    nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['zb'] }] }],
  });
});

test('Required sends a replica to the missing zone where most callers run, not the first by name', () => {
  const { decideFor } = setUp({ ...RULE, within: undefined, mode: 'Required' }, [
    boundOf('f1', 'a1', 'frontend'),
    boundOf('f2', 'b1', 'frontend'),
    boundOf('f3', 'b2', 'frontend'),
  ]);
  assert.deepEqual(affinity(decideFor('cache')).required, {
    nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['zb'] }] }],
  });
});

test('minDomains: with its callers in one zone for now, the second replica still goes to another zone', () => {
  const pods = [boundOf('f1', 'a1', 'frontend'), boundOf('c1', 'a2', 'cart')];
  const zoneIn = (values: string[]) => ({
    nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values }] }],
  });
  const required = { ...RULE, within: undefined, mode: 'Required' as const };
  assert.deepEqual(affinity(setUp(required, pods).decideFor('cart', 1)).required, zoneIn(['za']), 'no minDomains');
  const held = setUp({ ...required, minDomains: 2 }, pods).decideFor('cart', 1);
  assert.deepEqual(affinity(held).required, zoneIn(['zb']));
  const preferred = affinity(setUp({ ...RULE, minDomains: 2 }, pods).decideFor('cart', 1)).preferred;
  assert.deepEqual((preferred as unknown[]).slice(0, 2), [term(100, ZONE, ['zb']), term(50, ZONE, ['za'])]);
  const two = setUp({ ...required, minDomains: 2 }, [...pods, boundOf('c2', 'b1', 'cart')]).decideFor('cart', 2);
  assert.deepEqual(affinity(two).required, zoneIn(['za']), 'two zones held: back to the callers’ zones');
});

test('Required holds a burst’s replicas to one missing zone each: the second, not bound yet, sees the first', () => {
  const { builder, decideFor } = setUp({ ...RULE, within: undefined, mode: 'Required' }, [
    boundOf('f1', 'a1', 'frontend'),
    boundOf('f2', 'b2', 'frontend'),
  ]);
  const zoneIn = (values: string[]) => ({
    nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values }] }],
  });
  const first = decideFor('cart', 0);
  assert.deepEqual(affinity(first).required, zoneIn(['za']), 'both zones lack it: the first of them');
  // The first replica as the API server stored it: admitted with that affinity, not bound yet.
  const admitted = boundOf('c1', '', 'cart') as KubeObject & { spec: Record<string, unknown> };
  builder.apply(
    'pods',
    'ADDED',
    {
      ...admitted,
      spec: {
        ...admitted.spec,
        nodeName: undefined,
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: zoneIn(['za']) } },
      },
      status: { phase: 'Pending' },
    },
    NOW,
  );
  assert.deepEqual(affinity(decideFor('cart', 1)).required, zoneIn(['zb']));
});

test('a replica admitted but not watched yet holds its zone: the next goes to the other, once', () => {
  const { builder, decideFor } = setUp({ ...RULE, within: undefined, mode: 'Required' }, [
    boundOf('f1', 'a1', 'frontend'),
    boundOf('f2', 'b2', 'frontend'),
  ]);
  const zoneIn = (values: string[]) => ({
    nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values }] }],
  });
  const admit = (index: number) => {
    const decision = decideFor('cart', index);
    const facts = podRequest(replica('cart', '1', undefined, index), 'ml').facts;
    const usage = admittedUsage(facts, decision.required ?? []);
    assert.ok(usage, 'held to one zone');
    builder.assume(usage, NOW);
    return decision;
  };
  assert.deepEqual(affinity(admit(0)).required, zoneIn(['za']));
  assert.deepEqual(affinity(admit(1)).required, zoneIn(['zb']), 'the first, only admitted, holds za');
  assert.deepEqual(affinity(decideFor('cart', 2)).required, zoneIn(['za', 'zb']), 'both zones hold one');
  // The watch brings the first as stored: its assumption ends, it is counted once.
  const stored = replica('cart', '1', undefined, 0);
  builder.apply(
    'pods',
    'ADDED',
    {
      ...stored,
      metadata: { ...stored.metadata, namespace: 'ml' },
      spec: {
        ...stored.spec,
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: zoneIn(['za']) } },
      },
      status: { phase: 'Pending' },
    } as KubeObject,
    NOW,
  );
  const heldIn = (zone: string) =>
    builder.occupancy().pendingUnder(ZONE)?.get(zone)?.workloads.get('ml/Deployment/cart');
  assert.equal(heldIn('za'), 1);
  assert.equal(heldIn('zb'), 1);
  // The second never arrives (refused after topogate admitted it): past the TTL zb lacks a replica again.
  assert.equal(builder.expireAssumed(NOW + ASSUMED_TTL_MS - 1), NOW + ASSUMED_TTL_MS, 'not yet');
  assert.equal(builder.expireAssumed(NOW + ASSUMED_TTL_MS), undefined);
  assert.equal(heldIn('zb'), undefined);
  assert.equal(heldIn('za'), 1, 'the watched one stays');
  assert.deepEqual(affinity(decideFor('cart', 3)).required, zoneIn(['zb']));
});

test('avoidDegradedNodes leaves out the nodes the probe found far from their zone', () => {
  const callers = [boundOf('f1', 'a1', 'frontend'), boundOf('f2', 'b2', 'frontend')];
  const preferred = setUp({ ...RULE, avoidDegradedNodes: true }, callers).decideFor('cart');
  assert.deepEqual((affinity(preferred).preferred as unknown[])[0], {
    weight: 100,
    preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['b1'] }] },
  });
  const required = setUp({ ...RULE, within: undefined, avoidDegradedNodes: true, mode: 'Required' }, callers);
  assert.deepEqual(affinity(required.decideFor('cart')).required, {
    nodeSelectorTerms: [
      {
        matchExpressions: [
          { key: ZONE, operator: 'In', values: ['za'] },
          { key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['b1'] },
        ],
      },
    ],
  });
});

test('the schema takes a colocate rule with its defaults, and refuses a repeated caller', () => {
  const text = (callers: string) =>
    `apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: p}\nspec:\n  rules:\n    colocate: {callers: ${callers}}\n`;
  const loaded = parsePolicies(text('[frontend]'), 'p.yaml');
  assert.deepEqual(loaded.errors, []);
  assert.deepEqual(loaded.policies[0]?.rules.colocate, {
    callers: ['frontend'],
    topologyKey: ZONE,
    mode: 'Preferred',
    avoidDegradedNodes: false,
  });
  assert.match(
    parsePolicies(text('[a, a]'), 'p.yaml')
      .errors.map((e) => e.message)
      .join('\n'),
    /callers\[1\]: repeats a/,
  );
});

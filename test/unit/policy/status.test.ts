import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/kube/types.ts';
import { statusUpdates } from '../../../src/policy/status.ts';
import { policy } from './engine-cluster.ts';

const NOW = Date.parse('2026-12-03T10:00:00Z');
const object = (name: string, spec: Record<string, unknown>, generation = 1, status?: unknown): KubeObject => ({
  apiVersion: 'topogate.dev/v1alpha1',
  kind: 'SchedulingPolicy',
  metadata: { name, generation, resourceVersion: `${name}-${generation}` },
  spec,
  ...(status !== undefined && { status }),
});
const valid = { rules: { spread: [{ topologyKey: 'topology.kubernetes.io/zone' }] } };

test('Ready True for a valid object, False with the loader’s exact error for an invalid one', () => {
  const updates = statusUpdates(
    [object('good', valid, 3), object('bad', { rules: { spread: [{ maxSkew: 0 }] } })],
    [],
    NOW,
  );
  assert.deepEqual(updates.get('good'), {
    observedGeneration: 3,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Valid',
        message: 'the policy is valid and in force',
        observedGeneration: 3,
        lastTransitionTime: '2026-12-03T10:00:00Z',
      },
    ],
  });
  const bad = updates.get('bad')!.conditions[0]!;
  assert.equal(bad.status, 'False');
  assert.equal(bad.reason, 'Invalid');
  assert.match(bad.message, /^SchedulingPolicy\/bad: spec\.rules\.spread\[0\]\./);
});

test('a name a policy file already uses is not Ready; an object already up to date is not written again', () => {
  const updates = statusUpdates([object('taken', valid)], [policy('taken', {})], NOW);
  assert.match(updates.get('taken')!.conditions[0]!.message, /duplicate policy name "taken"/);
  const written = statusUpdates([object('good', valid, 2)], [], NOW).get('good')!;
  assert.equal(statusUpdates([object('good', valid, 2, written)], [], NOW + 1000).size, 0);
  // A new generation is observed again, keeping the time of the last transition.
  const next = statusUpdates([object('good', valid, 3, written)], [], NOW + 1000).get('good')!;
  assert.equal(next.observedGeneration, 3);
  assert.equal(next.conditions[0]!.lastTransitionTime, '2026-12-03T10:00:00Z');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchesLabelSelector } from '../../../src/kube/selector.ts';
import { toleratesAll, toleratesTaint } from '../../../src/topology/tolerations.ts';

test('label selectors AND matchLabels and every operator', () => {
  const labels = { app: 'web', tier: 'front' };
  assert.equal(matchesLabelSelector({}, labels), true);
  assert.equal(matchesLabelSelector({ matchLabels: { app: 'web' } }, labels), true);
  assert.equal(matchesLabelSelector({ matchLabels: { app: 'db' } }, labels), false);
  assert.equal(
    matchesLabelSelector({ matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] }, labels),
    true,
  );
  assert.equal(
    matchesLabelSelector({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }, labels),
    false,
  );
  assert.equal(
    matchesLabelSelector({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, labels),
    true,
    'NotIn holds for a missing key',
  );
  assert.equal(matchesLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, labels), true);
  assert.equal(matchesLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, labels), false);
  assert.equal(
    matchesLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'x', operator: 'Exists' }] }, labels),
    false,
  );
  assert.equal(matchesLabelSelector({ matchLabels: { toString: 'x' } }, {}), false);
});

test('tolerations follow ToleratesTaint', () => {
  const taint = { key: 'gpu', value: 'true', effect: 'NoSchedule' as const };
  assert.equal(toleratesTaint({ key: 'gpu', operator: 'Exists' }, taint), true);
  assert.equal(toleratesTaint({ key: 'gpu', value: 'true' }, taint), true);
  assert.equal(toleratesTaint({ key: 'gpu', value: 'false' }, taint), false);
  assert.equal(toleratesTaint({ operator: 'Exists' }, taint), true, 'empty key with Exists tolerates everything');
  assert.equal(toleratesTaint({ key: 'gpu', operator: 'Exists', effect: 'NoExecute' }, taint), false);
  assert.equal(toleratesAll([], [{ key: 'soft', effect: 'PreferNoSchedule' }]), true, 'PreferNoSchedule never blocks');
  assert.equal(toleratesAll([], [taint]), false);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectWorkload, podWorkload, workloadKey } from '../../../src/kube/workload-identity.ts';

const owned = (kind: string, name: string, labels: Record<string, string> = {}, controller = true) => ({
  metadata: { name: `${name}-x1`, labels, ownerReferences: [{ kind, name, controller, uid: 'u' }] },
});

test("a Deployment's Pods are known by the Deployment, whatever their ReplicaSet's hash", () => {
  for (const hash of ['5d9c7b8f4', '6f7d8c9b1']) {
    const pod = owned('ReplicaSet', `web-${hash}`, { 'pod-template-hash': hash });
    assert.deepEqual(podWorkload(pod, 'shop'), { namespace: 'shop', kind: 'Deployment', name: 'web' });
  }
  assert.equal(
    workloadKey(podWorkload(owned('ReplicaSet', 'web-abc', { 'pod-template-hash': 'abc' }), 'shop')),
    workloadKey(objectWorkload({ kind: 'Deployment', metadata: { name: 'web' } }, 'shop')),
  );
});

test('a bare ReplicaSet, or one whose name does not end with the hash, stays itself', () => {
  assert.deepEqual(podWorkload(owned('ReplicaSet', 'cache'), 'a'), {
    namespace: 'a',
    kind: 'ReplicaSet',
    name: 'cache',
  });
  assert.deepEqual(podWorkload(owned('ReplicaSet', 'cache', { 'pod-template-hash': 'zz' }), 'a').kind, 'ReplicaSet');
  assert.deepEqual(podWorkload(owned('ReplicaSet', 'zz', { 'pod-template-hash': 'zz' }), 'a').name, 'zz');
});

test('other controllers name themselves; an owner that is not the controller does not count', () => {
  assert.deepEqual(podWorkload(owned('StatefulSet', 'db'), 'a'), { namespace: 'a', kind: 'StatefulSet', name: 'db' });
  assert.deepEqual(podWorkload(owned('StatefulSet', 'db', {}, false), 'a'), {
    namespace: 'a',
    kind: 'Pod',
    name: 'db-x1',
  });
});

test('a Pod without a controller is its own workload: name, else generateName', () => {
  assert.equal(podWorkload({ metadata: { name: 'solo' } }, 'n').name, 'solo');
  assert.equal(podWorkload({ metadata: { generateName: 'batch-' } }, 'n').name, 'batch-');
  assert.deepEqual(podWorkload({}, 'n'), { namespace: 'n', kind: 'Pod', name: '' });
  assert.notEqual(
    workloadKey(podWorkload({ metadata: { name: 'a' } }, 'x')),
    workloadKey(podWorkload({ metadata: { name: 'a' } }, 'y')),
  );
});

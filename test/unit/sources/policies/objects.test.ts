// The SchedulingPolicy objects' own informer sink (src/sources/policies/objects.ts): what a watch
// delivers, the contact it keeps, one notice per turn of the event loop, and no link to the topology.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { KubeObject } from '../../../../src/kube/types.ts';
import { PolicyObjects } from '../../../../src/sources/policies/objects.ts';
import { LiveModel } from '../../../../src/sources/topology/live-model.ts';
import { createTopologyMetrics } from '../../../../src/sources/topology/metrics.ts';
import { WATCHES } from '../../../../src/sources/topology/watches.ts';
import { TOPOLOGY_SOURCES } from '../../../../src/topology/kinds.ts';

const log = pino({ level: 'silent' });
const turn = () => new Promise((resolve) => setImmediate(resolve));
const policy = (name: string, resourceVersion = '1'): KubeObject => ({
  apiVersion: 'topogate.dev/v1alpha1',
  kind: 'SchedulingPolicy',
  metadata: { name, resourceVersion },
  spec: { rules: { spread: [{ topologyKey: 'zone' }] } },
});
const names = (objects: PolicyObjects) => objects.objects().map((object) => object.metadata?.name);

function watched() {
  const objects = new PolicyObjects(log);
  let notices = 0;
  objects.subscribe(() => notices++);
  return { objects, notices: () => notices };
}

test('not synced until listed; a list of 500 objects is one notice', async () => {
  const { objects, notices } = watched();
  assert.deepEqual(objects.status(), { synced: false, inContact: false });
  objects.replace(
    'schedulingPolicies',
    Array.from({ length: 500 }, (_, i) => policy(`p-${i}`)),
  );
  assert.equal(notices(), 0, 'told on the next turn, not during the list');
  await turn();
  assert.equal(notices(), 1);
  assert.deepEqual(objects.status(), { synced: true, inContact: true });
  assert.equal(objects.objects().length, 500);
});

test('watch events add, change and delete by name, a burst told once', async () => {
  const { objects, notices } = watched();
  objects.replace('schedulingPolicies', [policy('a'), policy('b')]);
  await turn();
  objects.apply('schedulingPolicies', 'ADDED', policy('c'));
  objects.apply('schedulingPolicies', 'MODIFIED', policy('a', '2'));
  objects.apply('schedulingPolicies', 'DELETED', policy('b'));
  await turn();
  assert.equal(notices(), 2);
  assert.deepEqual(names(objects), ['a', 'c']);
  assert.equal(objects.objects()[0]?.metadata?.resourceVersion, '2');
});

test('a lost watch keeps the objects seen last; the relist replaces them, dropping one deleted meanwhile', async () => {
  const { objects } = watched();
  objects.replace('schedulingPolicies', [policy('a'), policy('b')]);
  objects.fail('schedulingPolicies', 'connect ECONNREFUSED 127.0.0.1:6443');
  await turn();
  assert.deepEqual(objects.status(), { synced: true, inContact: false, error: 'connect ECONNREFUSED 127.0.0.1:6443' });
  assert.deepEqual(names(objects), ['a', 'b']);
  objects.replace('schedulingPolicies', [policy('a')]);
  await turn();
  assert.deepEqual(objects.status(), { synced: true, inContact: true });
  assert.deepEqual(names(objects), ['a']);
});

test('the CRD removed: no objects, and the reason', async () => {
  const { objects } = watched();
  objects.replace('schedulingPolicies', [policy('a')]);
  objects.disable('schedulingPolicies', 'CRD schedulingpolicies.topogate.dev not installed');
  await turn();
  assert.deepEqual(objects.objects(), []);
  assert.deepEqual(objects.status(), {
    synced: false,
    inContact: false,
    disabled: 'CRD schedulingpolicies.topogate.dev not installed',
  });
});

test('apart from the topology: a policy edit publishes no snapshot, a Node event tells the policies nothing', async () => {
  assert.equal(
    WATCHES.some((spec) => spec.kind === 'SchedulingPolicy'),
    false,
  );
  const model = new LiveModel(TOPOLOGY_SOURCES, createTopologyMetrics(new Registry()), log);
  const { objects, notices } = watched();
  let snapshots = 0;
  model.subscribe(() => snapshots++);
  model.replace('nodes', []);
  objects.replace('schedulingPolicies', []);
  await turn();
  const [version, told] = [model.current.version, notices()];

  objects.apply('schedulingPolicies', 'ADDED', policy('a'));
  await turn();
  assert.equal(model.current.version, version, 'no topology snapshot for a policy');
  assert.equal(notices(), told + 1);

  model.apply('nodes', 'ADDED', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  await turn();
  assert.equal(model.current.version, version + 1);
  assert.equal(snapshots, 2);
  assert.equal(notices(), told + 1, 'no policy notice for a Node');
});

test('a listener that throws does not keep the others from hearing', async () => {
  const { objects, notices } = watched();
  objects.subscribe(() => {
    throw new Error('boom');
  });
  let after = 0;
  objects.subscribe(() => after++);
  objects.replace('schedulingPolicies', []);
  await turn();
  assert.deepEqual([notices(), after], [1, 1]);
});

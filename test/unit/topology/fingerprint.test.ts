// A snapshot's id is its content's: the same objects in any order give the same id, another object another id,
// and Pods (which change the occupancy, not the snapshot) none.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TopologyBuilder } from '../../../src/topology/builder.ts';

const node = (name: string, zone: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
});
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd' }, spec: { nodeName: 'a' } };

function contentOf(objects: readonly Record<string, unknown>[], pods: readonly Record<string, unknown>[] = []) {
  const builder = new TopologyBuilder({ sources: ['nodes', 'pods'] });
  builder.replace('nodes', objects);
  builder.replace('pods', pods);
  return builder.publish().content;
}

test('the same objects in another order, in another builder, give the same content id', () => {
  const id = contentOf([node('a', 'z1'), node('b', 'z2')]);
  assert.match(id, /^[0-9a-f]{12}$/);
  assert.equal(contentOf([node('b', 'z2'), node('a', 'z1')]), id);
  assert.equal(contentOf([node('a', 'z1'), node('b', 'z2')], [pod]), id);
});

test('another object, or one gone, gives another content id; back to the same objects, the same id', () => {
  const builder = new TopologyBuilder({ sources: ['nodes'] });
  builder.replace('nodes', [node('a', 'z1'), node('b', 'z2')]);
  const first = builder.publish().content;
  builder.apply('nodes', 'MODIFIED', node('b', 'z3'));
  const moved = builder.publish().content;
  builder.apply('nodes', 'DELETED', node('b', 'z3'));
  const gone = builder.publish().content;
  builder.apply('nodes', 'ADDED', node('b', 'z2'));
  assert.equal(new Set([first, moved, gone]).size, 3);
  assert.equal(builder.publish().content, first);
});

const versioned = (name: string, zone: string, resourceVersion?: string) => {
  const object = node(name, zone);
  return { ...object, metadata: { ...object.metadata, ...(resourceVersion && { resourceVersion }) } };
};

function idOf(digestOf: 'content' | 'version', objects: readonly Record<string, unknown>[]): string {
  const builder = new TopologyBuilder({ sources: ['nodes'], digestOf });
  builder.replace('nodes', objects);
  return builder.publish().content;
}

test('digested by version, an object is its name and resourceVersion: another write, another id', () => {
  const id = idOf('version', [versioned('a', 'z1', '10'), versioned('b', 'z2', '11')]);
  // The API server gives every write a new resourceVersion: the same one is the same object.
  assert.equal(idOf('version', [versioned('b', 'z9', '11'), versioned('a', 'z1', '10')]), id);
  assert.notEqual(idOf('version', [versioned('a', 'z1', '10'), versioned('b', 'z2', '12')]), id);
  assert.notEqual(idOf('version', [versioned('a', 'z1', '10'), versioned('c', 'z2', '11')]), id);
});

test('digested by version, an object without a resourceVersion is digested by its content', () => {
  const id = idOf('version', [versioned('a', 'z1')]);
  assert.equal(id, idOf('content', [versioned('a', 'z1')]));
  assert.notEqual(idOf('version', [versioned('a', 'z2')]), id);
});

test('digested by content (files), an object edited by hand is another model, whatever its resourceVersion', () => {
  assert.notEqual(idOf('content', [versioned('a', 'z1', '10')]), idOf('content', [versioned('a', 'z2', '10')]));
});

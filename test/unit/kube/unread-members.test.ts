// What a list page loses before it is parsed is what the watches would have dropped anyway: the API's own
// round-trip objects (every field set) keep the same slimmed form, usage included, with those arrays cut.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { slim } from '../../../src/kube-client/slim.ts';
import { unreadMembers } from '../../../src/kube/unread-members.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { MemberSkim } from '../../../src/kube/skim.ts';
import { usageOf } from '../../../src/topology/read/pod-record.ts';
import { readNode } from '../../../src/topology/read/node.ts';
import { parse } from 'yaml';

const fixtures = new URL('../../../../shared/fixtures/real-world/', import.meta.url);
const fixture = (path: string) => readFileSync(new URL(path, fixtures), 'utf8');

function skimmed(source: string, text: string): KubeObject {
  const bytes = Buffer.from(JSON.stringify(JSON.parse(text)));
  return JSON.parse(Buffer.concat(new MemberSkim(unreadMembers(source)).cut(bytes)).toString('utf8')) as KubeObject;
}

test("a Pod's usage reads the same from the page without its unread members", () => {
  const pods = [
    JSON.parse(fixture('pods/k8s-api-roundtrip.core.v1.Pod.json')) as KubeObject,
    parse(fixture('pods/runai-fgo.fractional-gpu.running-pod.yaml')) as KubeObject,
  ];
  // Bound and running, so that each counts: the round-trip object's phase is an arbitrary string.
  const running = (pod: KubeObject) => ({ ...pod, status: { ...(pod.status as object), phase: 'Running' } });
  for (const pod of pods) {
    const cut = skimmed('pods', JSON.stringify(pod));
    for (const key of ['managedFields', 'containerStatuses', 'conditions', 'volumes', 'env'])
      assert.equal(JSON.stringify(cut).includes(`"${key}":[`), false, key);
    assert.notEqual(usageOf(slim('pods', running(pod))), undefined);
    assert.deepEqual(usageOf(slim('pods', running(cut))), usageOf(slim('pods', running(pod))));
  }
});

test("a Node's slimmed form and what the model reads of it are the same without its unread members", () => {
  const text = fixture('nodes/k8s-api-roundtrip.core.v1.Node.json');
  const full = JSON.parse(text) as KubeObject;
  const cut = skimmed('nodes', text);
  assert.ok(JSON.stringify(cut).length < JSON.stringify(full).length);
  const status = cut.status as Record<string, unknown>;
  for (const key of ['images', 'capacity', 'nodeInfo', 'daemonEndpoints'])
    assert.equal(status[key], undefined, `status.${key} is cut`);
  assert.equal(cut.metadata?.annotations, undefined);
  assert.deepEqual(slim('nodes', cut), slim('nodes', full));
  assert.deepEqual(readNode('n', slim('nodes', cut)), readNode('n', slim('nodes', full)));
});

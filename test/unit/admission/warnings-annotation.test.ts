import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  controllerMade as controllerMadeFacts,
  warningsOnPod as warningsOnFacts,
  WARNINGS_ANNOTATION,
} from '../../../src/admission/warnings-annotation.ts';
import { podFacts } from '../../../src/kube/podFacts.ts';
import type { Pod } from '../../../src/kube/types.ts';
import { isKept, keep } from '../../../src/memo/kept.ts';
import type { Decision } from '../../../src/policy/types.ts';

/** The Pod parsed as the handler parses it. */
const controllerMade = (pod: Pod) => controllerMadeFacts(podFacts(pod, 'default'));
const warningsOnPod = (pod: Pod, decision: Decision) => warningsOnFacts(podFacts(pod, 'default'), decision);

const owned = (annotations?: Record<string, string>): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    generateName: 'web-7d9f-',
    ...(annotations && { annotations }),
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f', uid: 'u', controller: true }],
  },
  spec: { containers: [{ name: 'main', image: 'nginx' }] },
});

const decision = (more: Partial<Decision> = {}): Decision => ({
  allowed: true,
  patch: [],
  warnings: ['policy a: required placement (zones) dropped: no node fits', 'policy b: matched but changed nothing'],
  auditAnnotations: {},
  applied: [],
  matched: ['a', 'b'],
  ...more,
});

describe('warnings of controller-made Pods', () => {
  it('go on the Pod as topogate.dev/warnings, one a line, creating the annotations when there are none', () => {
    const { patch } = warningsOnPod(owned(), decision());
    assert.deepEqual(patch, [
      {
        op: 'add',
        path: '/metadata/annotations',
        value: {
          [WARNINGS_ANNOTATION]:
            'policy a: required placement (zones) dropped: no node fits\npolicy b: matched but changed nothing',
        },
      },
    ]);
  });

  it('are added beside existing annotations, or those the decision itself adds', () => {
    const beside = warningsOnPod(owned({ team: 'web' }), decision()).patch;
    assert.equal(beside.length, 1);
    assert.equal(beside[0]?.path, '/metadata/annotations/topogate.dev~1warnings');
    const afterPolicies = warningsOnPod(
      owned(),
      decision({ patch: [{ op: 'add', path: '/metadata/annotations', value: { 'topogate.dev/policies': 'a' } }] }),
    ).patch;
    assert.deepEqual(
      afterPolicies.map((operation) => operation.path),
      ['/metadata/annotations', '/metadata/annotations/topogate.dev~1warnings'],
    );
  });

  it('are left to the API server for Pods a person creates, for denials and when there are none', () => {
    const bare: Pod = { ...owned(), metadata: { name: 'bare' } };
    assert.equal(controllerMade(bare), false);
    assert.deepEqual(warningsOnPod(bare, decision()).patch, []);
    assert.deepEqual(warningsOnPod(owned(), decision({ allowed: false, message: 'no' })).patch, []);
    assert.deepEqual(warningsOnPod(owned(), decision({ warnings: [] })).patch, []);
    // An owner that is not the controller (e.g. a garbage-collection owner) does not count.
    const notController: Pod = { ...owned(), metadata: { ownerReferences: [{ kind: 'ConfigMap', name: 'x' }] } };
    assert.equal(controllerMade(notController), false);
  });

  it('give replicas (one decision, Pods of one shape) the same patch array, and each shape its own', () => {
    const shared = decision({ patch: [{ op: 'add', path: '/spec/priority', value: 1 }] });
    keep(shared, shared.patch); // as the decision memo keeps it
    const first = warningsOnPod(owned(), shared);
    const again = warningsOnPod(owned(), shared);
    assert.equal(again.patch, first.patch, 'one array for both replicas');
    const annotated = warningsOnPod(owned({ team: 'a' }), shared);
    assert.notEqual(annotated.patch, first.patch);
    assert.equal(annotated.patch.at(-1)?.path, `/metadata/annotations/${WARNINGS_ANNOTATION.replace('/', '~1')}`);
    assert.equal(first.patch.at(-1)?.path, '/metadata/annotations');
    assert.equal(warningsOnPod(owned({ team: 'b' }), shared).patch, annotated.patch);
    assert.equal(warningsOnPod(owned(), shared).patch, first.patch, 'the first shape is still remembered');
    assert.deepEqual(shared.patch, [{ op: 'add', path: '/spec/priority', value: 1 }], 'the decision is left as it was');
  });

  it('annotate a decision the memo does not keep afresh each time, and remember nothing of it', () => {
    const once = decision({ patch: [{ op: 'add', path: '/spec/priority', value: 1 }] });
    const first = warningsOnPod(owned(), once);
    const again = warningsOnPod(owned(), once);
    assert.deepEqual(again.patch, first.patch);
    assert.notEqual(again.patch, first.patch, 'a new array: nothing was cached on the one-off decision');
    assert.equal(isKept(first), false);
    assert.equal(isKept(first.patch), false);
  });

  it('mark the patch they derive from a kept one as kept, so that its encoding is remembered too', () => {
    const shared = decision({ patch: [{ op: 'add', path: '/spec/priority', value: 1 }] });
    keep(shared.patch);
    assert.equal(isKept(warningsOnPod(owned(), shared).patch), true);
  });

  it('give new Pods of one shape (decisions of their own, one kept patch) one patch a warnings text', () => {
    const written = [{ op: 'add' as const, path: '/spec/priority', value: 1 }];
    keep(written); // as the memo of what decisions write keeps it
    const newPod = (warnings: string[]) => warningsOnPod(owned(), decision({ patch: written, warnings }));
    const first = newPod(['w1', 'w2']);
    assert.equal(newPod(['w1', 'w2']).patch, first.patch);
    const other = newPod(['w3']);
    assert.notEqual(other.patch, first.patch);
    assert.deepEqual(other.patch.at(-1), {
      op: 'add',
      path: '/metadata/annotations',
      value: { [WARNINGS_ANNOTATION]: 'w3' },
    });
    for (const text of ['a', 'b', 'c', 'd']) newPod([text]);
    assert.notEqual(newPod(['w1', 'w2']).patch, first.patch, 'four texts at most are remembered per patch');
  });
});

describe('an Audit policy', () => {
  it("leaves a controller's Pod byte-identical: its warnings are not written on the Pod", () => {
    const audited = decision({
      warnings: ['audit: policy watch would add required topology.kubernetes.io/zone In [zone-c]'],
      matched: ['watch'],
    });
    assert.deepEqual(warningsOnPod(owned(), audited).patch, []);
  });

  it("keeps the Enforce policies' warnings on the Pod, without the Audit ones", () => {
    const mixed = decision({
      warnings: ['policy a: spread[0] dropped: no label', 'audit: policy watch would change nothing'],
    });
    assert.deepEqual(warningsOnPod(owned(), mixed).patch, [
      {
        op: 'add',
        path: '/metadata/annotations',
        value: { [WARNINGS_ANNOTATION]: 'policy a: spread[0] dropped: no label' },
      },
    ]);
  });
});

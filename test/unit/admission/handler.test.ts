import assert from 'node:assert/strict';
import { test } from 'node:test';
import { handleAdmission } from '../../../src/admission/handler.ts';
import type { AdmissionRequest } from '../../../src/admission/review.ts';
import type { Decision, PodRequest } from '../../../src/policy/types.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'from-pod' }, spec: { containers: [] } };
const podCreate: AdmissionRequest = {
  uid: 'u',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  operation: 'CREATE',
  object: pod,
};
const decision = (overrides: Partial<Decision> = {}): Decision => ({
  allowed: true,
  patch: [],
  warnings: [],
  auditAnnotations: {},
  applied: [],
  matched: [],
  ...overrides,
});

function recordingDecider(result: Decision) {
  const seen: PodRequest[] = [];
  return { seen, decide: (request: PodRequest) => (seen.push(request), result) };
}

test('decides a Pod CREATE and answers with its patch, warnings and annotations', () => {
  const patch = [{ op: 'add' as const, path: '/spec/schedulerName', value: 'x' }];
  const { seen, decide } = recordingDecider(
    decision({ patch, warnings: ['w'], auditAnnotations: { a: 'b' }, applied: ['p1'] }),
  );
  const handled = handleAdmission(podCreate, { decide });
  assert.equal(handled.outcome, 'patched');
  assert.deepEqual(handled.answer, { allowed: true, patch, warnings: ['w'], auditAnnotations: { a: 'b' } });
  assert.deepEqual(seen, [podRequest(pod, 'from-pod')]);
});

test('the namespace is the request\'s, else the Pod\'s, else "default"', () => {
  const { seen, decide } = recordingDecider(decision());
  handleAdmission({ ...podCreate, namespace: 'from-request' }, { decide });
  handleAdmission({ ...podCreate, object: { spec: {} } }, { decide });
  assert.deepEqual(
    seen.map((request) => request.facts.namespace),
    ['from-request', 'default'],
  );
});

test("answers a denial with the decision's message", () => {
  const { decide } = recordingDecider(decision({ allowed: false, message: 'policy gpu: no A100 node' }));
  const handled = handleAdmission(podCreate, { decide });
  assert.equal(handled.outcome, 'denied');
  assert.equal(handled.answer.status?.message, 'policy gpu: no A100 node');
});

test('admits unchanged, without deciding, everything but a Pod CREATE', () => {
  const { seen, decide } = recordingDecider(decision({ allowed: false }));
  const others: AdmissionRequest[] = [
    { ...podCreate, operation: 'UPDATE' },
    { ...podCreate, operation: 'DELETE', object: null },
    { ...podCreate, subResource: 'binding', kind: { group: '', version: 'v1', kind: 'Binding' } },
    { ...podCreate, subResource: 'ephemeralcontainers' },
    {
      ...podCreate,
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    },
    { ...podCreate, kind: { group: 'example.com', version: 'v1', kind: 'Pod' } },
  ];
  for (const request of others)
    assert.deepEqual(handleAdmission(request, { decide }), {
      answer: { allowed: true, patch: [], warnings: [], auditAnnotations: {} },
      outcome: 'allowed',
    });
  assert.equal(seen.length, 0);
});

test('without a kind, the resource says whether it is a Pod', () => {
  const { seen, decide } = recordingDecider(decision());
  handleAdmission(
    { uid: 'u', resource: { group: '', version: 'v1', resource: 'pods' }, operation: 'CREATE', object: pod },
    { decide },
  );
  assert.equal(seen.length, 1);
});

test('skips the decision when asked to, admitting unchanged with the warning', () => {
  const { seen, decide } = recordingDecider(decision({ allowed: false }));
  const handled = handleAdmission(podCreate, { decide, skip: () => 'over budget' });
  assert.deepEqual(handled, {
    answer: { allowed: true, patch: [], warnings: ['over budget'], auditAnnotations: {} },
    outcome: 'skipped',
  });
  assert.equal(seen.length, 0);
});

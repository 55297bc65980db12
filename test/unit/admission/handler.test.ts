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

test('tells `admitted` of each Pod admitted for real, never of a dry run or a denial', () => {
  const told: [string, Decision][] = [];
  const admitted = (request: PodRequest, made: Decision) => void told.push([request.facts.namespace, made]);
  const placed = decision({ patch: [{ op: 'add', path: '/spec/schedulerName', value: 'x' }] });
  handleAdmission(podCreate, { decide: () => placed, admitted });
  handleAdmission({ ...podCreate, dryRun: true }, { decide: () => placed, admitted });
  handleAdmission(podCreate, { decide: () => decision({ allowed: false, message: 'no' }), admitted });
  assert.deepEqual(told, [['from-pod', placed]]);
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

test('a Pod over the bounds of what topogate reads is admitted unchanged without a decision, saying which part', () => {
  const entries = (count: number, value = 'v') =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, value]));
  const at = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
    ...podCreate,
    object: { ...pod, metadata: { ...pod.metadata, ...metadata }, spec: { containers: [], ...spec } },
  });
  const requirement = (values: number) => ({ key: 'zone', operator: 'In', values: Array(values).fill('a') });
  const affinity = (values: number, terms = 1) => ({
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: Array.from({ length: terms }, () => ({ matchExpressions: [requirement(values)] })),
        },
      },
    },
  });
  for (const [request, part] of [
    [at({}, { labels: entries(100_000) }), /metadata\.labels has more than 1000 entries/],
    [at({}, { annotations: entries(1_001) }), /metadata\.annotations has more than 1000 entries/],
    [at({}, { annotations: entries(300, 'x'.repeat(1_000)) }), /annotations hold more than 262144 bytes/],
    [at({ nodeSelector: entries(100_000) }), /spec\.nodeSelector has more than 1000 entries/],
    [at({ tolerations: Array(1_001).fill({ operator: 'Exists' }) }), /spec\.tolerations has more than 1000/],
    [at(affinity(1_001)), /a requirement has more than 1000 entries/],
    [at(affinity(1_000, 11)), /the Pod has more than 10000 entries in the fields read/],
  ] as const) {
    const { seen, decide } = recordingDecider(decision({ patch: [{ op: 'add', path: '/x', value: 1 }] }));
    const handled = handleAdmission(request, { decide });
    assert.equal(handled.outcome, 'skipped');
    assert.equal(seen.length, 0, 'not decided');
    assert.deepEqual(handled.answer.patch, []);
    assert.match(handled.answer.warnings[0] ?? '', /^topogate skipped placement: /);
    assert.match(handled.answer.warnings[0] ?? '', part);
  }
  // At the bounds, decided as usual.
  const { seen, decide } = recordingDecider(decision());
  const within = at({ nodeSelector: entries(1_000), ...affinity(1_000) }, { labels: entries(1_000) });
  assert.equal(handleAdmission(within, { decide }).outcome, 'allowed');
  assert.equal(seen.length, 1);
});

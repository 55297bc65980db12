import assert from 'node:assert/strict';
import { test } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import type { Pod } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { readRecord } from '../../../src/policy/record.ts';
import { fnv1a } from '../../../src/kube/fnv1a.ts';
import { inRollout, rolloutBucket } from '../../../src/policy/rollout.ts';
import { takeBack } from '../../../src/policy/takeBack.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { clusterObjects, decideIn, NOW, OPTIONS, pod, policy } from './engine-cluster.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';

const ZONE = 'topology.kubernetes.io/zone';
const zoneA = (extra = {}) =>
  policy(
    'zone-a',
    { nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-a'] }], preferred: [] } },
    extra,
  );

const owned = (kind: string, name: string, labels: Record<string, string> = {}, podName = `${name}-x1`): Pod =>
  pod(
    {},
    {
      name: podName,
      labels: { app: 'web', ...labels },
      ownerReferences: [{ apiVersion: 'apps/v1', kind, name, uid: 'u', controller: true }],
    },
  );

test('the rollout bucket is FNV-1a of namespace/Kind/name modulo 100, and a higher percent only adds', () => {
  assert.equal(
    rolloutBucket({ namespace: 'shop', kind: 'Deployment', name: 'web' }),
    fnv1a('shop/Deployment/web') % 100,
  );
  const workloads = Array.from({ length: 400 }, (_, index) => ({
    namespace: 'ns',
    kind: 'Deployment',
    name: `app-${index}`,
  }));
  let previous = new Set<number>();
  for (const percent of [0, 10, 25, 50, 75, 100]) {
    const inside = new Set(workloads.flatMap((workload, index) => (inRollout(percent, workload) ? [index] : [])));
    for (const index of previous) assert.ok(inside.has(index), `workload ${index} left at ${percent} %`);
    assert.ok(Math.abs(inside.size - 4 * percent) <= 40, `${inside.size} of 400 in at ${percent} %`);
    previous = inside;
  }
});

test('a workload left out of the rollout is treated as not matched, and every replica alike', () => {
  const snapshot = buildSnapshot(clusterObjects(), { now: NOW });
  const compiled = compile([zoneA({ rollout: { percent: 50 } })], snapshot);
  let patchedWorkloads = 0;
  for (let index = 0; index < 40; index++) {
    const name = `web-${index}`;
    const hash = `h${index}`;
    const replicas = [1, 2, 3].map((replica) =>
      owned('ReplicaSet', `${name}-${hash}`, { 'pod-template-hash': hash }, `${name}-${hash}-${replica}`),
    );
    const decisions = replicas.map((replica) => decide(podRequest(replica, 'shop'), compiled, OPTIONS));
    const applied = decisions.map((decision) => decision.applied.length > 0);
    assert.ok(
      applied.every((value) => value === applied[0]),
      `replicas of ${name} differ`,
    );
    const inside = inRollout(50, { namespace: 'shop', kind: 'Deployment', name });
    assert.equal(applied[0], inside);
    if (inside) patchedWorkloads++;
    else assert.deepEqual(decisions[0]!.matched, []);
  }
  assert.ok(patchedWorkloads >= 12 && patchedWorkloads <= 28, `${patchedWorkloads} of 40`);
  const out = Array.from({ length: 40 }, (_, index) => `web-${index}`).find(
    (name) => !inRollout(50, { namespace: 'shop', kind: 'Deployment', name }),
  )!;
  const explained = decide(
    podRequest(owned('ReplicaSet', `${out}-h`, { 'pod-template-hash': 'h' }), 'shop'),
    compiled,
    { ...OPTIONS, explain: true },
  );
  const trace = explained.trace as { policies: { reason?: string }[] };
  assert.match(
    trace.policies[0]!.reason!,
    new RegExp(`left out by rollout.percent 50: workload shop/Deployment/${out} has bucket \\d+`),
  );
});

test('an Audit policy changes nothing, never denies, and says its would-be outputs', () => {
  const input = pod();
  const audit = policy(
    'audit-zone',
    { nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-a'] }], preferred: [] } },
    { enforcement: 'Audit' },
  );
  const decision = decideIn([audit], input);
  assert.deepEqual(decision.patch, []);
  assert.deepEqual(decision.applied, []);
  assert.deepEqual(decision.matched, ['audit-zone']);
  assert.deepEqual(decision.audited, [{ policy: 'audit-zone', wouldChange: true, unsatisfiable: false }]);
  assert.deepEqual(decision.warnings, [
    'audit: policy audit-zone would add required topology.kubernetes.io/zone In [zone-a]',
  ]);
  assert.deepEqual(JSON.parse(decision.auditAnnotations.audit!), {
    'audit-zone': 'would add required topology.kubernetes.io/zone In [zone-a]',
  });

  const rejecting = policy(
    'nowhere',
    { nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-z'] }], preferred: [] } },
    { enforcement: 'Audit', onUnsatisfiable: 'Reject' },
  );
  const both = decideIn([rejecting, zoneA()], input);
  assert.equal(both.allowed, true);
  assert.deepEqual(both.applied, ['zone-a']);
  assert.deepEqual(both.audited, [{ policy: 'nowhere', wouldChange: false, unsatisfiable: true }]);
  assert.match(
    both.warnings.find((warning) => warning.startsWith('audit: '))!,
    /^audit: policy nowhere would deny the Pod: /,
  );
});

test('an Audit policy does not narrow what lower-priority policies are judged against', () => {
  const auditA = policy(
    'audit-a',
    { nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-a'] }], preferred: [] } },
    { enforcement: 'Audit', priority: 10 },
  );
  const enforceB = policy('zone-b', {
    nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-b'] }], preferred: [] },
  });
  const decision = decideIn([auditA, enforceB], pod());
  assert.deepEqual(decision.applied, ['zone-b']);
  assert.ok(!decision.warnings.some((warning) => warning.includes('conflicts')), decision.warnings.join('\n'));
});

test('Pods of a DaemonSet get no placement outputs, and explain says why', () => {
  const daemon = owned('DaemonSet', 'node-exporter');
  const decision = decideIn([zoneA()], daemon, 'default', clusterObjects(), { explain: true });
  assert.deepEqual(decision.patch, []);
  assert.deepEqual(decision.matched, []);
  assert.match((decision.trace as { skipped: string }).skipped, /^owned by DaemonSet node-exporter: /);
  // The decision memo tells a DaemonSet's Pod from an otherwise equal Pod, however often both are seen.
  const compiled = compile([zoneA()], buildSnapshot(clusterObjects(), { now: NOW }));
  const alone = pod({}, { name: 'node-exporter-x1' });
  const zoneAffinity = {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['zone-a'] }] }],
      },
    },
  };
  for (let round = 0; round < 3; round++) {
    assert.deepEqual(decide(podRequest(daemon, 'default'), compiled, OPTIONS).patch, []);
    const placed = decide(podRequest(alone, 'default'), compiled, OPTIONS);
    assert.deepEqual(placed.applied, ['zone-a']);
    assert.deepEqual(placed.patch[0], { op: 'add', path: '/spec/affinity', value: zoneAffinity });
  }
});

test('the decision record names policies, rules and snapshot, and takes the additions back exactly', () => {
  const input = pod({
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }],
        },
      },
    },
  });
  const policies = [
    zoneA({ generation: 4 }),
    policy('spread', { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] }),
    policy('prefer', {
      nodeLabels: {
        required: [],
        preferred: [{ weight: 5, requirements: [{ key: 'disk', operator: 'In', values: ['nvme'] }] }],
      },
    }),
  ];
  const decision = decideIn(policies, input);
  const mutated = fastJsonPatch.applyPatch(
    structuredClone(input),
    structuredClone(decision.patch) as fastJsonPatch.Operation[],
  ).newDocument;
  const { record } = readRecord(mutated);
  assert.equal(record?.snapshot, decision.snapshot);
  assert.deepEqual(
    record?.policies.map((entry) => [entry.name, entry.generation, entry.rules]),
    [
      ['prefer', undefined, { 'nodeLabels.preferred': 'added' }],
      ['spread', undefined, { 'spread[0]': 'added' }],
      ['zone-a', 4, { 'nodeLabels.required': 'added' }],
    ],
  );
  // As the scheduler leaves it: bound to a node, with a status.
  const live = { ...mutated, spec: { ...mutated.spec, nodeName: 'a-cpu' }, status: { phase: 'Running' } };
  assert.deepEqual(takeBack(live, record), input);
  // Decided again, the Pod gets the same patch.
  assert.deepEqual(decideIn(policies, takeBack(live, record)).patch, decision.patch);
});

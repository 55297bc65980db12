// The decision memo must be invisible: a compiled set that has already decided
// other Pods decides each Pod exactly as a freshly compiled one does.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod, Toleration } from '../../../src/kube/types.ts';
import type { PodRequest } from '../../../src/policy/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { isKept } from '../../../src/memo/kept.ts';
import { DecisionMemo, MEMO_LIMIT } from '../../../src/policy/memo.ts';
import { textHash } from '../../../src/memo/textHash.ts';
import { freshUntil } from '../../../src/policy/rules/table.ts';
import { placementNodes, schedulableFor } from '../../../src/policy/satisfiability.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { clusterObjects, NOW, OPTIONS, pod, policy } from './engine-cluster.ts';
import { podFacts, podRequest } from '../../../src/kube/podFacts.ts';

const ZONE = 'topology.kubernetes.io/zone';
const infra: Toleration = { key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' };
const gpuRequest = (count: number) => ({
  containers: [{ name: 'c', image: 'x', resources: { limits: { 'nvidia.com/gpu': String(count) } } }],
});
const cpuRequest = (cpu: string) => ({
  containers: [{ name: 'c', image: 'x', resources: { limits: { cpu, memory: '4Gi' } } }],
});

/** Pods that differ in one placement input each, so a key that missed one would hand one Pod another's nodes. */
const PODS: readonly Pod[] = [
  pod(),
  pod({ tolerations: [infra] }),
  pod({ nodeSelector: { disk: 'nvme' } }),
  pod({ nodeSelector: { disk: 'ssd' } }),
  pod({
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['zone-c'] }] }],
        },
      },
    },
    tolerations: [infra],
  }),
  pod({ topologySpreadConstraints: [{ topologyKey: 'disk', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] }),
  pod({ topologySpreadConstraints: [{ topologyKey: 'disk', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] }),
  pod(gpuRequest(4)),
  pod(gpuRequest(8)),
  pod(cpuRequest('2')),
  pod({ ...cpuRequest('2'), nodeSelector: { disk: 'ssd' } }),
  pod(cpuRequest('12')),
];

const POLICIES = [
  policy(
    'gpu',
    { gpu: { products: ['NVIDIA-*'], resource: 'nvidia.com/gpu', mode: 'Required', weight: 1 } },
    { priority: 20 },
  ),
  policy(
    'labels',
    { nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-a', 'zone-b'] }], preferred: [] } },
    { priority: 10 },
  ),
  policy('spread', { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] }),
  policy('numa', { numa: { policy: 'SingleNUMANode', mode: 'Required', maxCandidates: 1 } }, { priority: -10 }),
];

/** Pods that differ from pod() in one field the decision reads beyond placement. */
const DECISION_PODS: readonly Pod[] = [
  pod({}, { labels: { app: 'db' } }),
  pod({}, { labels: {} }),
  pod({}, { annotations: { 'topogate.dev/skip': 'true' } }),
  pod({}, { annotations: { note: 'x' } }),
  pod({ ...cpuRequest('2'), schedulerName: 'other' }),
  pod({ nodeName: 'n1' }),
  pod({ topologySpreadConstraints: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] }),
  pod({
    ...cpuRequest('2'),
    initContainers: [{ name: 'side', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '1' } } }],
  }),
  pod({ ...cpuRequest('2'), initContainers: [{ name: 'init', image: 'x', resources: { requests: { cpu: '1' } } }] }),
  pod({ ...cpuRequest('2'), initContainers: [{ name: 'init', image: 'x', resources: { requests: { cpu: '12' } } }] }),
  pod({ ...cpuRequest('2'), tolerations: [infra] }),
  pod({ ...gpuRequest(4), tolerations: [infra] }),
  pod({ ...cpuRequest('2'), overhead: { cpu: '250m' } }),
  pod({ ...cpuRequest('2'), resources: { requests: { cpu: '4' } } }),
  pod({ containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '2', memory: '4Gi' } } }] }),
  { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'c', image: 'x' }] } },
  { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { containers: [{ name: 'c', image: 'x' }] } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare' } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare' }, spec: {} },
];

/** Policies that read what DECISION_PODS vary: labels (spread, podSelector), QoS, resources, tolerations (zone-c is tainted), schedulerName. */
const MORE_POLICIES = [
  policy(
    'web-spread',
    { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] },
    { priority: 5, match: { podSelector: { matchLabels: { app: 'web' } } } },
  ),
  policy(
    'guaranteed',
    {
      nodeLabels: {
        required: [],
        preferred: [{ weight: 10, requirements: [{ key: 'disk', operator: 'In', values: ['nvme'] }] }],
      },
    },
    { priority: 4, match: { qosClasses: ['Guaranteed'] } },
  ),
  policy(
    'zone-c',
    { nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-c'] }], preferred: [] } },
    { priority: 1, match: { namespaces: ['ml'] } },
  ),
  policy(
    'numa-scheduler',
    { numa: { policy: 'SingleNUMANode', mode: 'Preferred', maxCandidates: 2, schedulerName: 'topo-scheduler' } },
    { priority: 3, match: { namespaces: ['ml'] } },
  ),
];

describe('decision memo', () => {
  test('a set that decided other Pods first decides each Pod as a fresh one does', () => {
    const shared = compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW }));
    const order = [...PODS, ...[...PODS].reverse(), ...PODS];
    const fresh = (target: Pod) =>
      decide(podRequest(target, 'default'), compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW })), {
        ...OPTIONS,
        explain: true,
      });
    for (const target of order)
      assert.deepEqual(decide(podRequest(target, 'default'), shared, { ...OPTIONS, explain: true }), fresh(target));
  });

  test('whole decisions: each Pod gets what a fresh set decides, however many Pods came before', () => {
    const requests = [...PODS, ...DECISION_PODS].flatMap((target) => [
      podRequest(target, 'default'),
      podRequest(target, 'ml'),
    ]);
    for (const policies of [[...POLICIES, ...MORE_POLICIES], MORE_POLICIES]) {
      const shared = compile(policies, buildSnapshot(clusterObjects(), { now: NOW }));
      const fresh = (request: PodRequest) =>
        decide(request, compile(policies, buildSnapshot(clusterObjects(), { now: NOW })), OPTIONS);
      for (const request of [...requests, ...[...requests].reverse()])
        assert.deepEqual(decide(request, shared, OPTIONS), fresh(request), JSON.stringify(request));
    }
  });

  /** A Pod of the trainer ReplicaSet: its name and uid its own, the rest its siblings'. */
  const replica = (name: string, namespace = 'default', annotations?: Record<string, string>) =>
    podRequest(
      pod(gpuRequest(4), {
        name,
        uid: `uid-${name}`,
        generateName: 'trainer-',
        labels: { app: 'trainer' },
        ...(annotations && { annotations }),
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'trainer', uid: 'rs', controller: true }],
      }),
      namespace,
    );

  test('whole decisions: replicas (one controller) that differ only in name and uid are decided, then kept from the third', () => {
    const compiled = compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW }));
    const first = decide(replica('trainer-a'), compiled, OPTIONS);
    assert.ok(first.patch.length > 0);
    const second = decide(replica('trainer-b'), compiled, OPTIONS);
    assert.notEqual(second, first, "a decision is not kept on its labels' and annotations' first sight");
    const third = decide(replica('trainer-c'), compiled, OPTIONS);
    assert.notEqual(third, second, "nor on its key's first sight");
    assert.deepEqual(third, first);
    assert.equal(decide(replica('trainer-d'), compiled, OPTIONS), third);
    // What identity caches downstream may key on (kept.ts): the kept decision and its patch, not the one-offs; the
    // writes (a patch) are kept from their own second sight, a decision earlier.
    assert.deepEqual([isKept(first), isKept(first.patch)], [false, false]);
    assert.deepEqual([isKept(second), isKept(second.patch)], [false, true]);
    assert.deepEqual([isKept(third), isKept(third.patch)], [true, true]);
    assert.equal(third.patch, second.patch);
    decide(replica('trainer-e', 'ml'), compiled, OPTIONS);
    assert.notEqual(decide(replica('trainer-f', 'ml'), compiled, OPTIONS), third, 'the namespace is part of the key');
  });

  test('whole decisions: a Pod with annotations never met is a first sight, however often its labels were met', () => {
    const compiled = compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW }));
    const withChecksum = (name: string, checksum: string) => replica(name, 'default', { 'checksum/config': checksum });
    for (const name of ['a', 'b', 'c']) decide(withChecksum(`trainer-${name}`, 'one'), compiled, OPTIONS);
    const first = decide(withChecksum('trainer-d', 'two'), compiled, OPTIONS);
    const second = decide(withChecksum('trainer-e', 'two'), compiled, OPTIONS);
    // Had the new annotation been checked by the key (labels met before), the key's second sight would keep it.
    assert.deepEqual([isKept(first), isKept(second)], [false, false], 'the first sight of the pair made no key');
    const third = decide(withChecksum('trainer-f', 'two'), compiled, OPTIONS);
    assert.equal(isKept(third), true);
    assert.deepEqual(third, first);
  });

  test('whole decisions: once a source goes stale, the clock counts again', () => {
    const near = [
      policy('near-a', { latency: { to: { zone: 'zone-a' }, maxRttMs: 1, mode: 'Required' } }),
      policy('near-etcd', { latency: { to: { etcdLeader: true }, maxRttMs: 1.5, mode: 'Preferred' } }),
    ];
    const compiled = compile(near, buildSnapshot(clusterObjects(), { now: NOW }));
    const request = podRequest(pod(), 'default');
    decide(request, compiled, OPTIONS);
    decide(request, compiled, OPTIONS);
    const early = decide(request, compiled, OPTIONS);
    assert.deepEqual(early.warnings, []);
    for (const later of [NOW + 20 * 60_000, NOW + 30 * 60_000]) {
      const options = { ...OPTIONS, now: later };
      const decision = decide(request, compiled, options);
      assert.deepEqual(
        decision,
        decide(request, compile(near, buildSnapshot(clusterObjects(), { now: NOW })), options),
      );
      assert.match(
        decision.warnings.join('\n'),
        new RegExp(`NetworkTopology is stale \\(${Math.round((later - NOW + 60_000) / 1000)}s old`),
      );
    }
    assert.equal(decide(request, compiled, OPTIONS), early);
  });

  test('placement answers what schedulableFor and placementNodes do, Pod by Pod', () => {
    const snapshot = buildSnapshot(clusterObjects(), { now: NOW });
    const { memo } = compile(POLICIES, snapshot);
    for (const target of [...PODS, ...PODS].map((each) => podFacts(each, 'default').placement)) {
      const { schedulable, own } = memo.placement(target);
      assert.ok(schedulable.equals(schedulableFor(target, snapshot)));
      assert.ok(own.equals(placementNodes(target, snapshot)));
    }
  });

  test('and keeps the identity of a set it already computed', () => {
    const snapshot = buildSnapshot(clusterObjects(), { now: NOW });
    const { memo } = compile(POLICIES, snapshot);
    const zoneA = snapshot.nodes.withLabelValue(ZONE, 'zone-a');
    const schedulable = snapshot.nodes.schedulable();
    const first = memo.and(schedulable, zoneA);
    assert.equal(memo.and(schedulable, zoneA), first);
    assert.ok(first.equals(schedulable.and(zoneA)));
    assert.equal(first.size, 2);
  });

  test('freshUntil answers what the rules judge by the clock, worked out again only for another source age', () => {
    const snapshot = buildSnapshot(clusterObjects(), { now: NOW });
    const asked: number[] = [];
    const memo = new DecisionMemo(snapshot, 'test', (age) => (asked.push(age), freshUntil(snapshot, age)));
    const ages = [600_000, 1_000, 1_000, 600_000, 0];
    const answers = ages.map((age) => memo.freshUntil(age));
    assert.deepEqual(
      answers,
      ages.map((age) => freshUntil(snapshot, age)),
    );
    assert.deepEqual(asked, [600_000, 1_000, 600_000, 0]);
    assert.ok(Number.isFinite(answers[0]!) && answers[0]! > answers[1]!, 'the sources have ages to compare');
  });

  test('candidates are the policies whose namespace fields hold, in priority order, asked once per namespace', () => {
    const rules = { nodeLabels: { required: [{ key: 'disk', operator: 'Exists' as const }], preferred: [] } };
    const policies = [
      policy('any', rules, { priority: 1 }),
      policy('ml-glob', rules, { priority: 9, match: { namespaces: ['m?'] } }),
      policy('team-ml', rules, { priority: 5, match: { namespaceSelector: { matchLabels: { team: 'ml' } } } }),
      policy('not-ml', rules, { priority: 7, match: { excludeNamespaces: ['ml'] } }),
      policy('by-name-label', rules, {
        priority: 3,
        match: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } } },
      }),
      policy('pods-only', rules, { priority: 2, match: { podSelector: { matchLabels: { app: 'x' } } } }),
    ];
    const compiled = compile(policies, buildSnapshot(clusterObjects(), { now: NOW }));
    const names = (namespace: string) => compiled.candidates(namespace).map((candidate) => candidate.policy.name);
    assert.deepEqual(names('ml'), ['ml-glob', 'team-ml', 'pods-only', 'any']);
    assert.deepEqual(names('web'), ['not-ml', 'by-name-label', 'pods-only', 'any']);
    assert.deepEqual(names('unknown'), ['not-ml', 'pods-only', 'any']);
    assert.equal(compiled.candidates('ml'), compiled.candidates('ml'));
  });
});

describe('the decision memo is keyed by a hash of the facts', () => {
  test('two Pods whose facts share a hash each get their own decision', () => {
    const memo = new DecisionMemo(
      buildSnapshot(clusterObjects(), { now: NOW }),
      'test',
      () => Number.POSITIVE_INFINITY,
    );
    const base = podFacts(pod(), 'default');
    const request = (value: number): PodRequest => ({ facts: { ...base, labels: { n: String(value) } }, name: 'p' });
    // 30 bits: two of some 40,000 texts share a hash (the birthday bound), found here rather than hard-coded.
    const byHash = new Map<number, number>();
    let pair: [number, number] | undefined;
    for (let value = 0; pair === undefined; value++) {
      const hash = textHash(JSON.stringify(request(value).facts));
      const earlier = byHash.get(hash);
      if (earlier === undefined) byHash.set(hash, value);
      else pair = [earlier, value];
    }
    const decisionFor = (value: number) => ({
      allowed: true,
      patch: [],
      warnings: [`for ${value}`],
      auditAnnotations: {},
      applied: [],
      matched: [],
    });
    const [first, second] = pair;
    memo.decision(request(first), () => decisionFor(first));
    memo.decision(request(first), () => decisionFor(first));
    const kept = memo.decision(request(first), () => decisionFor(first));
    assert.equal(
      memo.decision(request(first), () => decisionFor(-1)),
      kept,
      "kept from the key's second sight",
    );
    for (let sight = 0; sight < 3; sight++)
      assert.deepEqual(memo.decision(request(second), () => decisionFor(second)).warnings, [`for ${second}`]);
  });
});

describe('the decision memo is least-recently-used', () => {
  test("a StatefulSet's stream of one-off Pods does not evict a hot Deployment's decision", () => {
    const memo = new DecisionMemo(
      buildSnapshot(clusterObjects(), { now: NOW }),
      'test',
      () => Number.POSITIVE_INFINITY,
    );
    const owner = (kind: string, name: string) => [{ apiVersion: 'apps/v1', kind, name, uid: name, controller: true }];
    const hot = podRequest(
      pod({}, { name: 'web-1', labels: { app: 'web' }, ownerReferences: owner('ReplicaSet', 'web-5d8f') }),
      'web',
    );
    let hotComputed = 0;
    const decideHot = () =>
      memo.decision(hot, () => {
        hotComputed++;
        return { allowed: true, patch: [], warnings: [], auditAnnotations: {}, applied: [], matched: [] };
      });
    decideHot(); // its labels' and annotations' first sight
    decideHot();
    decideHot(); // kept from the key's second sight on
    // Twice MEMO_LIMIT StatefulSet Pods, each the only one of its kind (its own pod-name label), the hot
    // Deployment's replica among them every 100: a FIFO of MEMO_LIMIT would drop the hot entry half-way.
    for (let ordinal = 0; ordinal < 2 * MEMO_LIMIT; ordinal++) {
      const member = pod(
        {},
        {
          name: `db-${ordinal}`,
          labels: { app: 'db', 'statefulset.kubernetes.io/pod-name': `db-${ordinal}` },
          ownerReferences: owner('StatefulSet', 'db'),
        },
      );
      memo.decision(podRequest(member, 'data'), () => ({
        allowed: true,
        patch: [],
        warnings: [],
        auditAnnotations: {},
        applied: [],
        matched: [],
      }));
      if (ordinal % 100 === 0) decideHot();
    }
    assert.equal(hotComputed, 3);
  });
});

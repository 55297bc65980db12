// Random clusters, Pods and policies: whatever the decision, its patch
// applies (with fast-json-patch and with the small applier below), keeps
// what the user wrote, is not repeated on reinvocation, and only ever
// narrows the Pod's placement, never to nothing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import fastJsonPatch from 'fast-json-patch';
import type { KubeObject, NodeSelectorRequirement, PatchOperation, Pod } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { placementNodes } from '../../../src/policy/satisfiability.ts';
import type { PolicyRules, SchedulingPolicy } from '../../../src/policy/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { node, NOW, OPTIONS } from './engine-cluster.ts';
import { podFacts, podRequest } from '../../../src/kube/podFacts.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

const ZONES = ['z1', 'z2', 'z3'];
const NAMESPACES = ['default', 'ml', 'web'];
const KEYS = ['zone', 'disk', 'tier', 'topology.kubernetes.io/zone'];
const VALUES = ['z1', 'z2', 'nvme', 'ssd', 'a'];
/** Labels policies select by; Pods carry these and one no policy reads. */
const POD_LABEL_KEYS = ['app', 'app.kubernetes.io/name', 'team'];
const POD_LABEL_VALUES = ['web', 'db'];

const requirement: fc.Arbitrary<NodeSelectorRequirement> = fc.oneof(
  fc.record({
    key: fc.constantFrom(...KEYS),
    operator: fc.constantFrom('In' as const, 'NotIn' as const),
    values: fc.uniqueArray(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 2 }),
  }),
  fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
  fc.record({
    key: fc.constant('nvidia.com/gpu.count'),
    operator: fc.constantFrom('Gt' as const, 'Lt' as const),
    values: fc.tuple(fc.integer({ min: 0, max: 8 }).map(String)),
  }),
);

const clusterNode = fc.record({
  zone: fc.option(fc.constantFrom(...ZONES), { nil: undefined }),
  disk: fc.option(fc.constantFrom('nvme', 'ssd'), { nil: undefined }),
  gpu: fc.option(
    fc.record({
      product: fc.constantFrom('NVIDIA-H100-80GB', 'NVIDIA-A100-40GB', 'Tesla-T4'),
      count: fc.integer({ min: 1, max: 8 }),
    }),
    { nil: undefined },
  ),
  tainted: fc.boolean(),
  cordoned: fc.boolean(),
});

const cluster = fc.array(clusterNode, { minLength: 1, maxLength: 10 }).map((nodes): KubeObject[] => [
  ...nodes.map((spec, index) =>
    node(
      `n${index}`,
      {
        ...(spec.zone ? { 'topology.kubernetes.io/zone': spec.zone, zone: spec.zone } : {}),
        ...(spec.disk ? { disk: spec.disk } : {}),
        ...(spec.gpu
          ? {
              'nvidia.com/gpu.product': spec.gpu.product,
              'nvidia.com/gpu.count': String(spec.gpu.count),
              'nvidia.com/gpu.memory': spec.gpu.product.includes('80GB') ? '81920' : '40960',
            }
          : {}),
      },
      {
        ...(spec.tainted ? { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' as const }] } : {}),
        unschedulable: spec.cordoned,
      },
    ),
  ),
  networkTopology({
    name: 'net',
    links: [
      { from: 'z1', to: 'z2', rttMs: 1 },
      { from: 'z2', to: 'z3', rttMs: 3 },
    ],
    status: { observedAt: new Date(NOW).toISOString() },
  }),
]);

const rules: fc.Arbitrary<PolicyRules> = fc.record(
  {
    nodeLabels: fc.record({
      required: fc.array(requirement, { maxLength: 2 }),
      preferred: fc.array(
        fc.record({
          weight: fc.integer({ min: 1, max: 100 }),
          requirements: fc.array(requirement, { minLength: 1, maxLength: 2 }),
        }),
        { maxLength: 2 },
      ),
    }),
    gpu: fc.record({
      products: fc.array(fc.constantFrom('NVIDIA-*', 'Tesla-T?', 'NVIDIA-H100*', 'AMD-*'), { maxLength: 2 }),
      resource: fc.constant('nvidia.com/gpu'),
      mode: fc.constantFrom('Required' as const, 'Preferred' as const),
      weight: fc.integer({ min: 1, max: 100 }),
    }),
    latency: fc.record({
      to: fc.constantFrom(...ZONES).map((zone) => ({ zone })),
      maxRttMs: fc.constantFrom(0, 1, 2, 5),
      mode: fc.constantFrom('Required' as const, 'Preferred' as const),
    }),
    spread: fc.array(
      fc.record(
        {
          topologyKey: fc.constantFrom('topology.kubernetes.io/zone', 'kubernetes.io/hostname', 'rack'),
          maxSkew: fc.integer({ min: 1, max: 3 }),
          whenUnsatisfiable: fc.constantFrom('DoNotSchedule' as const, 'ScheduleAnyway' as const),
          selectorLabelKeys: fc.uniqueArray(fc.constantFrom(...POD_LABEL_KEYS), { minLength: 1, maxLength: 2 }),
          matchLabelKeys: fc.uniqueArray(fc.constantFrom(...POD_LABEL_KEYS), { maxLength: 1 }),
        },
        { requiredKeys: ['topologyKey', 'maxSkew', 'whenUnsatisfiable'] },
      ),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: [] },
);

const policies = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom('alpha', 'beta', 'gamma', 'delta'),
      priority: fc.integer({ min: 0, max: 3 }),
      onUnsatisfiable: fc.constantFrom('Warn' as const, 'Reject' as const),
      rules,
      match: fc.record(
        {
          namespaces: fc.array(fc.constantFrom(...NAMESPACES, 'w*', '?l'), { minLength: 1, maxLength: 2 }),
          podSelector: fc.record(
            {
              matchLabels: fc.dictionary(fc.constantFrom(...POD_LABEL_KEYS), fc.constantFrom(...POD_LABEL_VALUES)),
              matchExpressions: fc.array(
                fc.record({
                  key: fc.constantFrom(...POD_LABEL_KEYS),
                  operator: fc.constantFrom(
                    'In' as const,
                    'NotIn' as const,
                    'Exists' as const,
                    'DoesNotExist' as const,
                  ),
                  values: fc.constant(['web']),
                }),
                { maxLength: 2 },
              ),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    }),
    { selector: (policy) => policy.name, minLength: 1, maxLength: 3 },
  )
  .map((list): SchedulingPolicy[] => list);

const podArbitrary: fc.Arbitrary<Pod> = fc
  .record({
    labels: fc.dictionary(
      fc.constantFrom(...POD_LABEL_KEYS, 'pod-template-hash'),
      fc.constantFrom(...POD_LABEL_VALUES),
    ),
    annotations: fc.option(
      fc.dictionary(fc.constantFrom('a/b', 'x~y', 'plain', 'topogate.dev/skip'), fc.constantFrom('true', 'v')),
      { nil: undefined },
    ),
    nodeSelector: fc.option(fc.dictionary(fc.constantFrom('disk', 'zone'), fc.constantFrom('nvme', 'z1')), {
      nil: undefined,
    }),
    terms: fc.option(
      fc.array(fc.record({ matchExpressions: fc.array(requirement, { maxLength: 2 }) }, { requiredKeys: [] }), {
        maxLength: 2,
      }),
      { nil: undefined },
    ),
    preferred: fc.option(
      fc.array(
        fc.record({
          weight: fc.integer({ min: 1, max: 100 }),
          preference: fc.record({ matchExpressions: fc.array(requirement, { maxLength: 1 }) }),
        }),
        { maxLength: 1 },
      ),
      { nil: undefined },
    ),
    tolerate: fc.boolean(),
    spread: fc.option(fc.constantFrom('topology.kubernetes.io/zone', 'rack'), { nil: undefined }),
    schedulerName: fc.option(fc.constantFrom('default-scheduler', 'custom'), { nil: undefined }),
    gpus: fc.integer({ min: 0, max: 4 }),
    withAffinityObject: fc.boolean(),
  })
  .map((shape) => {
    const spec: Record<string, unknown> = {
      containers: [
        {
          name: 'c',
          image: 'i',
          resources: {
            limits: { cpu: '1', memory: '1Gi', ...(shape.gpus ? { 'nvidia.com/gpu': String(shape.gpus) } : {}) },
          },
        },
      ],
    };
    if (shape.nodeSelector) spec.nodeSelector = shape.nodeSelector;
    if (shape.terms || shape.preferred) {
      spec.affinity = {
        nodeAffinity: {
          ...(shape.terms
            ? { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: shape.terms } }
            : {}),
          ...(shape.preferred ? { preferredDuringSchedulingIgnoredDuringExecution: shape.preferred } : {}),
        },
      };
    } else if (shape.withAffinityObject) {
      spec.affinity = {};
    }
    if (shape.tolerate) spec.tolerations = [{ key: 'dedicated', operator: 'Exists' }];
    if (shape.spread)
      spec.topologySpreadConstraints = [
        {
          maxSkew: 1,
          topologyKey: shape.spread,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'web' } },
        },
      ];
    if (shape.schedulerName) spec.schedulerName = shape.schedulerName;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: shape.labels, ...(shape.annotations ? { annotations: shape.annotations } : {}) },
      spec,
    } as Pod;
  });

/** RFC 6902 add/replace/remove/test with RFC 6901 pointers, written apart from the engine's PatchWriter. */
function applyIndependently(document: unknown, operations: readonly PatchOperation[]): unknown {
  const root = { '': structuredClone(document) } as Record<string, any>;
  for (const operation of operations) {
    const tokens =
      operation.path === ''
        ? []
        : operation.path
            .slice(1)
            .split('/')
            .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
    let parent: any = root;
    let key = '';
    for (const token of tokens) {
      parent = parent[key];
      assert.ok(parent !== null && typeof parent === 'object', `${operation.path}: parent missing`);
      key = token;
    }
    if (Array.isArray(parent)) {
      const index = key === '-' ? parent.length : Number(key);
      assert.ok(Number.isInteger(index) && index >= 0 && index <= parent.length, `${operation.path}: bad index`);
      if (operation.op === 'add') parent.splice(index, 0, structuredClone(operation.value));
      else assert.fail(`unexpected ${operation.op} in an array`);
    } else if (operation.op === 'add' || operation.op === 'replace') {
      if (operation.op === 'replace')
        assert.ok(Object.hasOwn(parent, key), `${operation.path}: replace of a missing member`);
      parent[key] = structuredClone(operation.value);
    } else {
      assert.fail(`unexpected ${operation.op}`);
    }
  }
  return root[''];
}

/** Everything in `original` is still in `patched` (arrays may grow at the end; objects may gain members). */
function assertKept(original: unknown, patched: unknown, path: string): void {
  if (path === '/spec/schedulerName' && original === 'default-scheduler') return;
  if (Array.isArray(original)) {
    assert.ok(Array.isArray(patched) && patched.length >= original.length, `${path} lost items`);
    original.forEach((item, index) => assertKept(item, patched[index], `${path}/${index}`));
  } else if (original !== null && typeof original === 'object') {
    assert.ok(patched !== null && typeof patched === 'object', `${path} lost`);
    for (const [key, value] of Object.entries(original))
      assertKept(value, (patched as Record<string, unknown>)[key], `${path}/${key}`);
  } else {
    assert.equal(patched, original, `${path} changed`);
  }
}

test('random Pods, policies and clusters: the patch applies, keeps, settles and only narrows', () => {
  fc.assert(
    fc.property(
      cluster,
      policies,
      podArbitrary,
      fc.constantFrom(...NAMESPACES),
      (objects, policySet, pod, namespace) => {
        const snapshot = buildSnapshot(objects, { now: NOW });
        const decision = decide(podRequest(pod, namespace), compile(policySet, snapshot), OPTIONS);
        const { trace, ...explained } = decide(podRequest(pod, namespace), compile(policySet, snapshot), {
          ...OPTIONS,
          explain: true,
        });
        assert.deepEqual(explained, decision, 'the namespace index changes nothing but the policies looked at');
        if (!decision.allowed) {
          assert.deepEqual(decision.patch, []);
          assert.ok(decision.message);
          return;
        }
        const viaLibrary = fastJsonPatch.applyPatch(
          structuredClone(pod),
          structuredClone(decision.patch) as fastJsonPatch.Operation[],
          true,
          false,
        ).newDocument;
        const viaOwn = applyIndependently(pod, decision.patch) as Pod;
        assert.deepEqual(viaOwn, viaLibrary);
        assertKept(pod, viaOwn, '');

        const again = decide(podRequest(viaOwn, namespace), compile(policySet, snapshot), OPTIONS);
        assert.deepEqual(again.patch, []);

        for (const term of viaOwn.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
          ?.nodeSelectorTerms ?? []) {
          for (const expression of term.matchExpressions ?? []) {
            if (expression.operator === 'In' || expression.operator === 'NotIn')
              assert.ok(expression.values?.length, 'no empty In/NotIn lists');
          }
        }
        const before = placementNodes(podFacts(pod, namespace).placement, snapshot);
        const after = placementNodes(podFacts(viaOwn, namespace).placement, snapshot);
        assert.ok(after.andNot(before).isEmpty(), 'the placement only narrows');
        if (!before.isEmpty()) assert.ok(!after.isEmpty(), 'a satisfiable Pod stays satisfiable');
        if (decision.applied.length > 0)
          assert.equal(viaOwn.metadata?.annotations?.['topogate.dev/policies'], decision.applied.join(','));
      },
    ),
    { numRuns: 500, seed: 20261202 },
  );
});

test('malformed Pods never throw, and their patch still applies', () => {
  const garbage = fc.oneof(fc.anything({ maxDepth: 2 }), fc.constant(null), fc.constant('x'), fc.constant([]));
  const malformed = fc.record(
    {
      apiVersion: fc.constant('v1'),
      kind: fc.constant('Pod'),
      metadata: fc.oneof(
        garbage,
        fc.record({ labels: fc.oneof(garbage, fc.constant({ app: 'web' })), annotations: garbage }),
      ),
      spec: fc.oneof(
        garbage,
        fc.record(
          {
            affinity: fc.oneof(
              garbage,
              fc.record({
                nodeAffinity: fc.oneof(
                  garbage,
                  fc.record({
                    requiredDuringSchedulingIgnoredDuringExecution: fc.oneof(
                      garbage,
                      fc.record({ nodeSelectorTerms: garbage }),
                    ),
                  }),
                ),
              }),
            ),
            tolerations: garbage,
            topologySpreadConstraints: garbage,
            containers: fc.oneof(
              garbage,
              fc.constant([{ resources: { limits: { cpu: 'lots', 'nvidia.com/gpu': 1 } } }]),
            ),
            nodeSelector: garbage,
            schedulerName: garbage,
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: ['apiVersion', 'kind'] },
  );
  fc.assert(
    fc.property(cluster, policies, malformed, (objects, policySet, pod) => {
      const snapshot = buildSnapshot(objects, { now: NOW });
      const decision = decide(podRequest(pod as Pod, 'default'), compile(policySet, snapshot), OPTIONS);
      if (decision.allowed) assert.doesNotThrow(() => applyIndependently(pod, decision.patch));
      fastJsonPatch.applyPatch(
        structuredClone(pod),
        structuredClone(decision.patch) as fastJsonPatch.Operation[],
        true,
        false,
      );
    }),
    { numRuns: 300, seed: 7 },
  );
});

/** Pod A with one field taken from Pod B: replicas-but-one-field, the Pods a memo key that missed a field would confuse. */
function crossed(a: Pod, b: Pod): Pod[] {
  const metadata = ['labels', 'annotations'] as const;
  const spec = [
    'nodeSelector',
    'affinity',
    'tolerations',
    'topologySpreadConstraints',
    'schedulerName',
    'containers',
  ] as const;
  return [
    ...metadata.map((field) => ({ ...a, metadata: { ...a.metadata, [field]: b.metadata?.[field] } })),
    ...spec.map((field) => ({ ...a, spec: { ...a.spec, [field]: b.spec?.[field] } })),
  ];
}

test('random Pods on one compiled set, each seen three times: every decision is what a fresh set decides', () => {
  fc.assert(
    fc.property(
      cluster,
      policies,
      podArbitrary,
      podArbitrary,
      fc.constantFrom(...NAMESPACES),
      (objects, policySet, a, b, namespace) => {
        const snapshot = buildSnapshot(objects, { now: NOW });
        const shared = compile(policySet, snapshot);
        const requests = [a, b, ...crossed(a, b)].flatMap((pod) => [
          podRequest(pod, namespace),
          podRequest(pod, 'other'),
        ]);
        // Three passes: the memo records a key, keeps its decision, then answers from it.
        for (let pass = 0; pass < 3; pass++) {
          for (const request of requests)
            assert.deepEqual(
              decide(request, shared, OPTIONS),
              decide(request, compile(policySet, snapshot), OPTIONS),
              `pass ${pass}`,
            );
        }
      },
    ),
    { numRuns: 200, seed: 20261202 },
  );
});

test('a decision sees only the labels its policies read, and is the decision made with every label', () => {
  fc.assert(
    fc.property(
      cluster,
      policies,
      podArbitrary,
      fc.constantFrom(...NAMESPACES),
      (objects, policySet, pod, namespace) => {
        const snapshot = buildSnapshot(objects, { now: NOW });
        const request = podRequest(pod, namespace);
        const projected = decide(request, compile(policySet, snapshot), OPTIONS);
        // A set that names every label the Pod carries cuts none: the decision made with all of them.
        const whole = compile(policySet, snapshot);
        const everyLabel = new Set(Object.keys(request.facts.labels));
        assert.deepEqual(projected, decide(request, { ...whole, podLabels: everyLabel }, OPTIONS));
      },
    ),
    { numRuns: 300 },
  );
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import type { Pod } from '../../../src/kube/types.ts';
import type { Decision, GpuRule, SchedulingPolicy } from '../../../src/policy/types.ts';
import { clusterObjects, decideIn, NOW, pod, policy } from './engine-cluster.ts';

const ZONE = 'topology.kubernetes.io/zone';
const H100: GpuRule = { products: ['NVIDIA-H100*'], resource: 'nvidia.com/gpu', mode: 'Required', weight: 100 };

/** The Pod after the decision's patch, checked to apply cleanly. */
function patched(input: Pod, decision: Decision): any {
  const result = fastJsonPatch.applyPatch(
    structuredClone(input),
    structuredClone(decision.patch) as fastJsonPatch.Operation[],
    true,
    false,
  );
  return result.newDocument;
}

function requiredTerms(output: any): any[] {
  return output.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
}

const gpuPod = (count: string) =>
  pod({ containers: [{ name: 'c', resources: { limits: { cpu: '2', memory: '4Gi', 'nvidia.com/gpu': count } } }] });

describe('rules become outputs as policy.md says', () => {
  test('nodeLabels.required makes one new term; preferred is appended', () => {
    const input = pod();
    const decision = decideIn(
      [
        policy('labels', {
          nodeLabels: {
            required: [{ key: 'disk', operator: 'In', values: ['nvme'] }],
            preferred: [{ weight: 50, requirements: [{ key: ZONE, operator: 'In', values: ['zone-a'] }] }],
          },
        }),
      ],
      input,
    );
    const output = patched(input, decision);
    assert.deepEqual(requiredTerms(output), [
      { matchExpressions: [{ key: 'disk', operator: 'In', values: ['nvme'] }] },
    ]);
    assert.deepEqual(output.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution, [
      { weight: 50, preference: { matchExpressions: [{ key: ZONE, operator: 'In', values: ['zone-a'] }] } },
    ]);
    assert.equal(output.metadata.annotations['topogate.dev/policies'], 'labels');
    assert.deepEqual(decision.warnings, []);
  });

  test('gpu Required: globs expand to the products present, memory and count floors', () => {
    const input = gpuPod('2');
    const decision = decideIn([policy('gpu', { gpu: { ...H100, minMemoryMiB: 80000 } })], input);
    assert.deepEqual(requiredTerms(patched(input, decision))[0].matchExpressions, [
      { key: 'nvidia.com/gpu.product', operator: 'In', values: ['NVIDIA-H100-80GB-HBM3'] },
      { key: 'nvidia.com/gpu.memory', operator: 'Gt', values: ['79999'] },
      { key: 'nvidia.com/gpu.count', operator: 'Gt', values: ['1'] },
    ]);
  });

  test('gpu Preferred: one weighted term; a glob matching every product lists them all', () => {
    const input = gpuPod('1');
    const decision = decideIn(
      [
        policy('gpu', {
          gpu: { products: ['NVIDIA-?100*'], resource: 'nvidia.com/gpu', mode: 'Preferred', weight: 30 },
        }),
      ],
      input,
    );
    const preferred = patched(input, decision).spec.affinity.nodeAffinity
      .preferredDuringSchedulingIgnoredDuringExecution;
    assert.deepEqual(preferred, [
      {
        weight: 30,
        preference: {
          matchExpressions: [
            {
              key: 'nvidia.com/gpu.product',
              operator: 'In',
              values: ['NVIDIA-A100-SXM4-40GB', 'NVIDIA-H100-80GB-HBM3'],
            },
            { key: 'nvidia.com/gpu.count', operator: 'Gt', values: ['0'] },
          ],
        },
      },
    ]);
  });

  test('numa Required: best-fitting candidates by hostname, the hint annotation, and the scheduler', () => {
    const input = pod({ containers: [{ name: 'c', resources: { limits: { cpu: '6', memory: '8Gi' } } }] });
    const decision = decideIn(
      [
        policy('numa', {
          numa: {
            policy: 'SingleNUMANode',
            mode: 'Required',
            maxCandidates: 16,
            schedulerName: 'topo-aware-scheduler',
          },
        }),
      ],
      input,
    );
    const output = patched(input, decision);
    // b-cpu's 8-cpu cells fit tighter than a-cpu's 16-cpu cell; a-cpu's 4-cpu cell does not fit.
    assert.deepEqual(requiredTerms(output)[0].matchExpressions, [
      { key: 'kubernetes.io/hostname', operator: 'In', values: ['b-cpu', 'a-cpu'] },
    ]);
    assert.deepEqual(JSON.parse(output.metadata.annotations['topogate.dev/numa-hint']), {
      'b-cpu': 'node-0',
      'a-cpu': 'node-1',
    });
    assert.equal(output.spec.schedulerName, 'topo-aware-scheduler');
    assert.deepEqual(decision.warnings, [], 'Guaranteed with integer CPUs: no alignment warning');
  });

  test('numa warns when the kubelet will not align the Pod, and keeps a custom scheduler', () => {
    const input = pod({
      schedulerName: 'volcano',
      containers: [{ name: 'c', resources: { requests: { cpu: '1500m' } } }],
    });
    const decision = decideIn(
      [
        policy('numa', {
          numa: {
            policy: 'SingleNUMANode',
            mode: 'Preferred',
            maxCandidates: 1,
            schedulerName: 'topo-aware-scheduler',
          },
        }),
      ],
      input,
    );
    const output = patched(input, decision);
    assert.equal(output.spec.schedulerName, 'volcano');
    assert.equal(
      output.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference
        .matchExpressions[0].values.length,
      1,
      'maxCandidates bounds the list',
    );
    assert.ok(decision.warnings.some((w) => w.includes('Burstable') && w.includes('may not be honoured')));
    assert.ok(
      decision.warnings.some((w) =>
        w.includes('schedulerName topo-aware-scheduler not set: the Pod already uses volcano'),
      ),
    );
  });

  test('latency Required: the zones within maxRttMs of the target', () => {
    const input = pod();
    const decision = decideIn(
      [policy('near-a', { latency: { to: { zone: 'zone-a' }, maxRttMs: 1, mode: 'Required' } })],
      input,
    );
    assert.deepEqual(requiredTerms(patched(input, decision))[0].matchExpressions, [
      { key: ZONE, operator: 'In', values: ['zone-a', 'zone-b'] },
    ]);
  });

  test('latency Preferred: terms weighted by closeness', () => {
    const input = pod();
    const decision = decideIn(
      [policy('near-a', { latency: { to: { zone: 'zone-a' }, maxRttMs: 2, mode: 'Preferred' } })],
      input,
    );
    const preferred = patched(input, decision).spec.affinity.nodeAffinity
      .preferredDuringSchedulingIgnoredDuringExecution;
    assert.deepEqual(
      preferred.map((term: any) => [term.weight, term.preference.matchExpressions[0].values]),
      [
        [100, ['zone-a']],
        [55, ['zone-b']],
        [31, ['zone-c']],
      ],
    );
  });

  test('latency to a Service and to the etcd leader', () => {
    const input = pod();
    const service = decideIn(
      [policy('near-db', { latency: { to: { service: 'db/postgres' }, maxRttMs: 1, mode: 'Required' } })],
      input,
    );
    assert.deepEqual(requiredTerms(patched(input, service))[0].matchExpressions[0].values, ['zone-a', 'zone-b']);
    const etcd = decideIn(
      [policy('near-etcd', { latency: { to: { etcdLeader: true }, maxRttMs: 1.5, mode: 'Required' } })],
      input,
    );
    assert.deepEqual(requiredTerms(patched(input, etcd))[0].matchExpressions[0].values, ['zone-a', 'zone-c']);
    const unknown = decideIn(
      [policy('near-cache', { latency: { to: { service: 'db/redis' }, maxRttMs: 1, mode: 'Required' } })],
      input,
    );
    assert.deepEqual(unknown.patch, []);
    assert.deepEqual(unknown.warnings, [
      'policy near-cache: latency dropped: service db/redis has no ready endpoints with a zone in the model',
      'policy near-cache matched but changed nothing',
    ]);
  });

  test('a stale NetworkTopology degrades Required latency to Preferred, with a warning', () => {
    const input = pod();
    const decision = decideIn(
      [policy('near-a', { latency: { to: { zone: 'zone-a' }, maxRttMs: 1, mode: 'Required' } })],
      input,
      'default',
      clusterObjects(NOW - 3_600_000),
    );
    const output = patched(input, decision);
    assert.equal(output.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, undefined);
    assert.equal(output.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution.length, 2);
    assert.match(
      decision.warnings.join('\n'),
      /latency degraded from Required to Preferred: NetworkTopology is stale \(3600s old/,
    );
  });

  test('stale etcd data drops a latency rule to the etcd leader', () => {
    const later = { now: NOW + 3_600_000 };
    const decision = decideIn(
      [policy('near-etcd', { latency: { to: { etcdLeader: true }, maxRttMs: 1.5, mode: 'Required' } })],
      pod(),
      'default',
      undefined,
      later,
    );
    assert.deepEqual(decision.patch, []);
    assert.match(
      decision.warnings[0]!,
      /^policy near-etcd: latency dropped: etcd data is stale \(3600s old, max 600s\): the leader is not known$/,
    );
  });

  test('spread: one constraint selecting the Pod by its own labels', () => {
    const input = pod({}, { labels: { app: 'web', 'app.kubernetes.io/instance': 'blue', other: 'x' } });
    const decision = decideIn(
      [
        policy('spread', {
          spread: [
            {
              topologyKey: ZONE,
              maxSkew: 2,
              whenUnsatisfiable: 'DoNotSchedule',
              minDomains: 2,
              matchLabelKeys: ['pod-template-hash'],
            },
          ],
        }),
      ],
      input,
    );
    assert.deepEqual(patched(input, decision).spec.topologySpreadConstraints, [
      {
        maxSkew: 2,
        topologyKey: ZONE,
        whenUnsatisfiable: 'DoNotSchedule',
        minDomains: 2,
        matchLabelKeys: ['pod-template-hash'],
        labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'blue', app: 'web' } },
      },
    ]);
  });
});

describe('merge rules', () => {
  const disk = { key: 'disk', operator: 'In' as const, values: ['nvme'] };

  test('1: requirements are ANDed into every existing term, never twice, and nodeSelector stays', () => {
    const input = pod({
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'disk', operator: 'In', values: ['nvme'] }] },
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a-gpu'] }] },
            ],
          },
        },
      },
    });
    const objects = clusterObjects().map((object) =>
      object.kind === 'Node'
        ? {
            ...object,
            metadata: { ...object.metadata, labels: { ...object.metadata!.labels, 'kubernetes.io/os': 'linux' } },
          }
        : object,
    );
    const decision = decideIn(
      [policy('p', { nodeLabels: { required: [disk, { key: ZONE, operator: 'Exists' }], preferred: [] } })],
      input,
      'default',
      objects,
    );
    const output = patched(input, decision);
    assert.deepEqual(requiredTerms(output), [
      { matchExpressions: [disk, { key: ZONE, operator: 'Exists' }] },
      {
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a-gpu'] }],
        matchExpressions: [disk, { key: ZONE, operator: 'Exists' }],
      },
    ]);
    assert.deepEqual(output.spec.nodeSelector, { 'kubernetes.io/os': 'linux' });
  });

  test('1: two policies adding the same expression write it once; the second changed nothing', () => {
    const input = pod();
    const decision = decideIn(
      [
        policy('a', { nodeLabels: { required: [disk], preferred: [] } }),
        policy('b', { nodeLabels: { required: [disk], preferred: [] } }),
      ],
      input,
    );
    assert.deepEqual(requiredTerms(patched(input, decision)), [{ matchExpressions: [disk] }]);
    assert.deepEqual(decision.applied, ['a']);
    assert.deepEqual(decision.warnings, ['policy b matched but changed nothing']);
  });

  test('2: existing preferred terms are kept as they are', () => {
    const mine = { weight: 7, preference: { matchExpressions: [{ key: 'x', operator: 'Exists' as const }] } };
    const input = pod({ affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [mine] } } });
    const decision = decideIn(
      [policy('p', { nodeLabels: { required: [], preferred: [{ weight: 1, requirements: [disk] }] } })],
      input,
    );
    assert.deepEqual(
      patched(input, decision).spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution,
      [mine, { weight: 1, preference: { matchExpressions: [disk] } }],
    );
  });

  test('3: no duplicate (topologyKey, whenUnsatisfiable), and no selector labels means no entry', () => {
    const own = { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway' as const };
    const input = pod({ topologySpreadConstraints: [own] });
    const spread = policy('spread', {
      spread: [
        { topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' },
        { topologyKey: 'kubernetes.io/hostname', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' },
      ],
    });
    const decision = decideIn([spread], input);
    assert.deepEqual(
      patched(input, decision).spec.topologySpreadConstraints.map((c: any) => c.topologyKey),
      [ZONE, 'kubernetes.io/hostname'],
    );
    assert.ok(
      decision.warnings.includes(
        'policy spread: spread[0]: the Pod already has a ScheduleAnyway spread constraint on topology.kubernetes.io/zone',
      ),
    );
    const unlabelled = pod({}, { labels: { team: 'x' } });
    const skipped = decideIn([spread], unlabelled);
    assert.deepEqual(skipped.patch, []);
    assert.equal(
      skipped.warnings.filter((w) =>
        w.includes('has none of the selector labels [app.kubernetes.io/name, app.kubernetes.io/instance, app]'),
      ).length,
      2,
    );
  });

  test('4: schedulerName replaces default-scheduler', () => {
    const input = pod({
      schedulerName: 'default-scheduler',
      containers: [{ name: 'c', resources: { limits: { cpu: '2', memory: '1Gi' } } }],
    });
    const decision = decideIn(
      [
        policy('numa', {
          numa: { policy: 'SingleNUMANode', mode: 'Preferred', maxCandidates: 16, schedulerName: 'topo' },
        }),
      ],
      input,
    );
    assert.deepEqual(
      decision.patch.find((op) => op.path === '/spec/schedulerName'),
      { op: 'add', path: '/spec/schedulerName', value: 'topo' },
    );
  });

  test('5: nodeName, the opt-out annotation and reinvocation leave the Pod unchanged', () => {
    const labels = policy('p', { nodeLabels: { required: [disk], preferred: [] } });
    for (const input of [
      pod({ nodeName: 'a-cpu' }),
      pod({}, { annotations: { 'topogate.dev/skip': 'true' } }),
      pod({}, { annotations: { 'topogate.dev/policies': 'p' } }),
    ]) {
      const decision = decideIn([labels], input);
      assert.deepEqual([decision.allowed, decision.patch, decision.warnings, decision.matched], [true, [], [], []]);
    }
    const input = pod();
    const again = patched(input, decideIn([labels], input));
    assert.deepEqual(decideIn([labels], again).patch, []);
  });

  test('6: a matched policy that changes nothing is said', () => {
    const decision = decideIn([policy('empty', {})], pod());
    assert.deepEqual(decision.warnings, ['policy empty matched but changed nothing']);
    assert.deepEqual(decision.matched, ['empty']);
  });
});

describe('satisfiability', () => {
  const toZoneC = (mode: SchedulingPolicy['onUnsatisfiable']) =>
    policy(
      'zone-c',
      {
        nodeLabels: {
          required: [{ key: ZONE, operator: 'In', values: ['zone-c'] }],
          preferred: [{ weight: 5, requirements: [{ key: 'disk', operator: 'Exists' }] }],
        },
      },
      { onUnsatisfiable: mode },
    );

  test('Warn drops the required outputs, keeps the preferred ones, and says why', () => {
    const input = pod();
    const decision = decideIn([toZoneC('Warn')], input);
    const output = patched(input, decision);
    assert.equal(output.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, undefined);
    assert.equal(output.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution.length, 1);
    assert.deepEqual(decision.warnings, [
      'policy zone-c: required placement (nodeLabels.required) dropped: rule nodeLabels.required is unsatisfiable; the model holds: 2 of 7 nodes match topology.kubernetes.io/zone In [zone-c]',
    ]);
  });

  test('Reject denies, naming the policy, the rule and what the model holds', () => {
    const decision = decideIn([toZoneC('Reject')], pod());
    assert.equal(decision.allowed, false);
    assert.equal(
      decision.message,
      "policy zone-c, rule nodeLabels.required: no schedulable node satisfies the Pod's placement; the model holds: 2 of 7 nodes match topology.kubernetes.io/zone In [zone-c]",
    );
    assert.deepEqual(decision.patch, []);
    const explained = decideIn(
      [
        policy(
          'both',
          {
            nodeLabels: { required: [{ key: 'disk', operator: 'Exists' }], preferred: [] },
            gpu: { ...H100, products: ['Tesla-*'] },
          },
          { onUnsatisfiable: 'Reject' },
        ),
      ],
      gpuPod('1'),
      'default',
      undefined,
      { explain: true },
    );
    const trace = explained.trace as any;
    assert.deepEqual(
      trace.policies[0].rules.map((rule: any) => [rule.rule, rule.outcome, rule.nodesBefore, rule.nodesAfter]),
      [
        ['nodeLabels.required', 'unchanged', 4, 3],
        ['gpu', 'dropped', 3, 0],
      ],
    );
    assert.equal(trace.policies[0].outcome, 'rejected');
  });

  test('tolerating the taint makes the tainted node schedulable', () => {
    const input = pod({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }] });
    const decision = decideIn([toZoneC('Reject')], input);
    assert.equal(decision.allowed, true);
    assert.deepEqual(requiredTerms(patched(input, decision))[0].matchExpressions[0].values, ['zone-c']);
  });

  test("the Pod's own nodeSelector and matchFields count", () => {
    const gpu = policy('gpu', { gpu: H100 }, { onUnsatisfiable: 'Reject' });
    assert.equal(decideIn([gpu], pod({ nodeSelector: { disk: 'nvme' } })).allowed, true, 'a-gpu has disk=nvme');
    assert.equal(decideIn([gpu], pod({ nodeSelector: { disk: 'ssd' } })).allowed, false);
    const byName = pod({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b-gpu'] }] }],
          },
        },
      },
    });
    assert.equal(decideIn([gpu], byName).allowed, false);
  });

  test('no product matching the globs is unsatisfiable, never an empty In list', () => {
    const decision = decideIn([policy('gpu', { gpu: { ...H100, products: ['Tesla-*'] } })], gpuPod('1'));
    assert.deepEqual(decision.patch, []);
    assert.match(decision.warnings[0]!, /no GPU product in the model matches \[Tesla-\*\]/);
  });

  test('a lower-priority policy that conflicts with higher ones is dropped, even with Reject', () => {
    const input = gpuPod('1');
    const decision = decideIn(
      [
        policy('gpu', { gpu: H100 }, { priority: 10 }),
        policy(
          'zone-b',
          { nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-b'] }], preferred: [] } },
          { onUnsatisfiable: 'Reject' },
        ),
      ],
      input,
    );
    assert.equal(decision.allowed, true);
    assert.deepEqual(decision.applied, ['gpu']);
    assert.match(
      decision.warnings.join('\n'),
      /policy zone-b: required placement \(nodeLabels.required\) dropped: rule nodeLabels.required conflicts with higher-priority policies \(gpu\)/,
    );
  });

  test('a Pod placed nowhere by itself is said so, and policies are judged against the schedulable nodes', () => {
    const labels = policy(
      'p',
      { nodeLabels: { required: [{ key: 'disk', operator: 'Exists' }], preferred: [] } },
      { onUnsatisfiable: 'Reject' },
    );
    const nowhere = decideIn([labels], pod({ nodeSelector: { disk: 'floppy' } }));
    assert.equal(nowhere.allowed, true);
    assert.deepEqual(nowhere.warnings, [
      "the Pod's own nodeSelector and required node affinity allow none of the 4 nodes schedulable for it",
    ]);
    const spreadOnRack = pod({
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'rack', whenUnsatisfiable: 'DoNotSchedule' }],
    });
    const none = decideIn([labels], spreadOnRack);
    assert.equal(none.allowed, true, 'judged against every node');
    assert.match(none.warnings[0]!, /^no node in the model is schedulable for this Pod \(of 7: /);
    const impossible = decideIn(
      [
        policy(
          'q',
          { nodeLabels: { required: [{ key: 'disk', operator: 'In', values: ['tape'] }], preferred: [] } },
          { onUnsatisfiable: 'Reject' },
        ),
      ],
      spreadOnRack,
    );
    assert.equal(impossible.allowed, false, 'a rule no node matches still rejects');
  });

  test('DoNotSchedule spread needs the topology key on some schedulable node', () => {
    const decision = decideIn(
      [
        policy(
          'rack',
          { spread: [{ topologyKey: 'rack', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
          { onUnsatisfiable: 'Reject' },
        ),
      ],
      pod(),
    );
    assert.equal(decision.allowed, false);
    assert.match(decision.message!, /0 of 7 nodes carry the label rack/);
  });
});

describe('matching', () => {
  const labels = (match: SchedulingPolicy['match']) =>
    policy('m', { nodeLabels: { required: [{ key: 'disk', operator: 'Exists' }], preferred: [] } }, { match });
  const cases: [string, SchedulingPolicy['match'], Pod, string, boolean][] = [
    ['namespace glob', { namespaces: ['m?'] }, pod(), 'ml', true],
    ['namespace glob misses', { namespaces: ['ml-*'] }, pod(), 'ml', false],
    ['excluded namespace', { namespaces: ['*'], excludeNamespaces: ['m*'] }, pod(), 'ml', false],
    ['namespaceSelector', { namespaceSelector: { matchLabels: { team: 'ml' } } }, pod(), 'ml', true],
    [
      'namespaceSelector on the automatic name label',
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } } },
      pod(),
      'web',
      true,
    ],
    ['namespaceSelector misses', { namespaceSelector: { matchLabels: { team: 'ml' } } }, pod(), 'web', false],
    [
      'podSelector',
      { podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] } },
      pod(),
      'default',
      true,
    ],
    [
      'resources in an init container',
      { resources: ['nvidia.com/gpu'] },
      pod({ initContainers: [{ name: 'i', resources: { limits: { 'nvidia.com/gpu': 1 } } }] }),
      'default',
      true,
    ],
    [
      'resources requested at zero',
      { resources: ['nvidia.com/gpu'] },
      pod({ containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': 0 } } }] }),
      'default',
      false,
    ],
    ['qosClasses', { qosClasses: ['BestEffort'] }, pod(), 'default', true],
    ['qosClasses misses', { qosClasses: ['Guaranteed'] }, pod(), 'default', false],
  ];
  for (const [name, match, input, namespace, expected] of cases) {
    test(name, () => {
      const decision = decideIn([labels(match)], input, namespace, undefined, { explain: true });
      assert.deepEqual(decision.matched, expected ? ['m'] : []);
      const trace = decision.trace as any;
      assert.equal(trace.policies[0].matched, expected);
      assert.equal(typeof trace.policies[0].reason, expected ? 'undefined' : 'string');
      // Without explain the namespace fields are asked once per namespace (candidates), the Pod's own per decision.
      assert.deepEqual(decideIn([labels(match)], input, namespace).matched, expected ? ['m'] : []);
    });
  }
});

test('annotation keys are escaped in patch paths and existing annotations are kept', () => {
  const input = pod({}, { annotations: { keep: 'me' } });
  const decision = decideIn(
    [policy('p', { nodeLabels: { required: [{ key: 'disk', operator: 'Exists' }], preferred: [] } })],
    input,
  );
  assert.ok(decision.patch.some((op) => op.path === '/metadata/annotations/topogate.dev~1policies'));
  const { 'topogate.dev/decision': record, ...annotations } = patched(input, decision).metadata.annotations;
  assert.deepEqual(annotations, { keep: 'me', 'topogate.dev/policies': 'p' });
  assert.equal(JSON.parse(record).snapshot, decision.snapshot);
  assert.deepEqual(decision.auditAnnotations, {
    policies: 'p',
    placement: '1 required, 0 preferred, 0 spread',
    snapshot: decision.snapshot,
  });
});

test('policies apply by priority, then name, and the annotation lists them in that order', () => {
  const mk = (name: string, priority: number) =>
    policy(name, { nodeLabels: { required: [{ key: name, operator: 'DoesNotExist' }], preferred: [] } }, { priority });
  const decision = decideIn([mk('b', 0), mk('z', 5), mk('a', 0)], pod());
  assert.deepEqual(decision.applied, ['z', 'a', 'b']);
  assert.equal(patched(pod(), decision).metadata.annotations['topogate.dev/policies'], 'z,a,b');
});

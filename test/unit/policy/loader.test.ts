import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatPolicyError } from '../../../src/policy/errors.ts';
import { parsePolicies, policyFromObject } from '../../../src/policy/parse.ts';
import { loadPolicies } from '../../../src/sources/policies/files.ts';
import { invalid, policy } from './loader-cases.ts';

const errorsOf = (text: string) => parsePolicies(text, 'p.yaml').errors.map(formatPolicyError);

for (const { name, text, errors } of invalid) {
  test(`invalid: ${name}`, () => {
    assert.deepEqual(errorsOf(text), errors);
    assert.deepEqual(
      parsePolicies(text, 'p.yaml').policies.filter((p) => p.name === 'p'),
      [],
    );
  });
}

test('defaults are applied', () => {
  const { policies, errors } = parsePolicies(
    policy(
      'rules:\n  nodeLabels: {required: [{key: disk, operator: Exists}]}\n  gpu: {}\n  numa: {}\n  latency: {to: {etcdLeader: true}, maxRttMs: 1.5}\n  spread: [{topologyKey: topology.kubernetes.io/zone}]',
    ),
    'p.yaml',
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(policies, [
    {
      name: 'p',
      priority: 0,
      onUnsatisfiable: 'Warn',
      rules: {
        nodeLabels: { required: [{ key: 'disk', operator: 'Exists' }], preferred: [] },
        gpu: { products: ['*'], resource: 'nvidia.com/gpu', mode: 'Required', weight: 100 },
        numa: { policy: 'SingleNUMANode', mode: 'Preferred', maxCandidates: 16 },
        latency: {
          to: { etcdLeader: true },
          maxRttMs: 1.5,
          mode: 'Preferred',
          percentile: 'p50',
          avoidDegradedNodes: false,
        },
        spread: [{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }],
      },
      source: { file: 'p.yaml', line: 3, col: 18 },
    },
  ]);
});

test('the full example of policy.md loads as written', () => {
  const text = `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata:
  name: gpu-training            # DNS-1123 name, unique among the loaded policies
spec:
  priority: 100
  match:
    namespaces: ["ml-*"]
    excludeNamespaces: ["ml-sandbox"]
    namespaceSelector: {matchLabels: {team: ml}}
    podSelector: {matchExpressions: [{key: app, operator: In, values: [trainer]}]}
    resources: ["nvidia.com/gpu"]
    qosClasses: [Guaranteed]
  onUnsatisfiable: Warn
  rules:
    nodeLabels:
      required: [{key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}]
      preferred: [{weight: 50, requirements: [{key: disk, operator: In, values: [nvme]}]}]
    gpu:
      products: ["NVIDIA-H100*"]
      minMemoryMiB: 80000
      resource: nvidia.com/gpu
      mode: Required
      weight: 100
    numa:
      policy: SingleNUMANode
      mode: Preferred
      maxCandidates: 16
      schedulerName: topo-aware-scheduler
    latency:
      to: {zone: us-east-1a}
      maxRttMs: 2
      mode: Required
    spread:
      - topologyKey: topology.kubernetes.io/zone
        maxSkew: 1
        whenUnsatisfiable: ScheduleAnyway
        minDomains: 3
        selectorLabelKeys: [app.kubernetes.io/name]
        matchLabelKeys: [pod-template-hash]
`;
  // As written, policy.md pairs minDomains with ScheduleAnyway, which its own rule forbids.
  assert.deepEqual(errorsOf(text), [
    'p.yaml:38:21: spec.rules.spread[0].minDomains: is only allowed with whenUnsatisfiable: DoNotSchedule',
  ]);
  const fixed = parsePolicies(text.replace('ScheduleAnyway', 'DoNotSchedule'), 'p.yaml');
  assert.deepEqual(fixed.errors, []);
  const [gpuTraining] = fixed.policies;
  assert.equal(gpuTraining?.priority, 100);
  assert.deepEqual(gpuTraining?.match?.namespaceSelector, { matchLabels: { team: 'ml' } });
  assert.deepEqual(gpuTraining?.rules.latency, {
    to: { zone: 'us-east-1a' },
    maxRttMs: 2,
    mode: 'Required',
    percentile: 'p50',
    avoidDegradedNodes: false,
  });
  assert.equal(gpuTraining?.rules.spread?.[0]?.minDomains, 3);
});

test('several documents, empty ones, and a List', () => {
  const list =
    'apiVersion: v1\nkind: List\nitems:\n  - apiVersion: topogate.dev/v1alpha1\n    kind: SchedulingPolicy\n    metadata: {name: c}\n    spec: {rules: {spread: [{topologyKey: zone, maxSkew: 0}]}}\n';
  const text = `---\n${policy('rules: {spread: [{topologyKey: zone}]}', 'a')}---\n# nothing\n---\n${policy('rules: {numa: {}}', 'b')}---\n${list}`;
  const { policies, errors } = parsePolicies(text, 'p.yaml');
  assert.deepEqual(
    policies.map((p) => p.name),
    ['a', 'b'],
  );
  assert.deepEqual(errors.map(formatPolicyError), [
    'p.yaml:22:58: items[0].spec.rules.spread[0].maxSkew: must be at least 1, got 0',
  ]);
});

test('policyFromObject checks an API object and names the field', () => {
  const object = {
    apiVersion: 'topogate.dev/v1alpha1',
    kind: 'SchedulingPolicy',
    metadata: { name: 'x', uid: 'u', resourceVersion: '7' },
    spec: { rules: { numa: { mode: 'Required' } } },
  };
  const good = policyFromObject(object, 'schedulingpolicy/x');
  assert.deepEqual(good.errors, []);
  assert.deepEqual(good.policy?.rules.numa, { policy: 'SingleNUMANode', mode: 'Required', maxCandidates: 16 });
  const bad = policyFromObject({ ...object, spec: { rules: { numa: { maxCandidates: '3' } } } }, 'schedulingpolicy/x');
  assert.equal(bad.policy, undefined);
  assert.deepEqual(bad.errors.map(formatPolicyError), [
    'schedulingpolicy/x: spec.rules.numa.maxCandidates: expected an integer, got string',
  ]);
  assert.deepEqual(policyFromObject('nope', 'o').errors.map(formatPolicyError), ['o: expected a map, got string']);
});

test('loadPolicies reads a directory, not its subfolders, and rejects duplicate names', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-loader-'));
  try {
    await writeFile(join(dir, 'a.yaml'), policy('rules: {numa: {}}', 'same'));
    await writeFile(
      join(dir, 'b.yml'),
      `${policy('rules: {numa: {}}', 'other')}---\n${policy('rules: {numa: {}}', 'same')}`,
    );
    await writeFile(join(dir, 'notes.md'), 'not a policy');
    await writeFile(join(dir, '.hidden.yaml'), 'broken: [');
    await mkdir(join(dir, 'tests'));
    await writeFile(join(dir, 'tests', 'c.yaml'), 'broken: [');
    const { policies, errors, files } = await loadPolicies([dir]);
    assert.deepEqual(files, [join(dir, 'a.yaml'), join(dir, 'b.yml')]);
    assert.deepEqual(
      policies.map((p) => p.name),
      ['same', 'other'],
    );
    assert.deepEqual(errors.map(formatPolicyError), [
      `${join(dir, 'b.yml')}:9:18: metadata.name: duplicate policy name "same" (first defined at ${join(dir, 'a.yaml')}:3:18)`,
    ]);
    const missing = await loadPolicies([join(dir, 'nope')]);
    assert.deepEqual(missing.errors.map(formatPolicyError), [
      `${join(dir, 'nope')}: cannot read: no such file or directory`,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('any text or value gives policies or located errors, never an exception', () => {
  const keys = fc.constantFrom(
    'apiVersion',
    'kind',
    'metadata',
    'name',
    'spec',
    'rules',
    'match',
    'gpu',
    'numa',
    'latency',
    'spread',
    'to',
    'values',
    'operator',
    'key',
    'weight',
    '__proto__',
    'items',
  );
  const leaves = fc.oneof(
    fc.constantFrom('topogate.dev/v1alpha1', 'SchedulingPolicy', 'List', 'In', 'Gt', 'Required', 'zone', ''),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
  );
  const values = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      leaves,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(keys, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  fc.assert(
    fc.property(values, (value) => {
      const fromObject = policyFromObject(value, 'o');
      assert.equal(fromObject.policy === undefined, fromObject.errors.length > 0);
      const text = JSON.stringify(value) ?? '';
      const parsed = parsePolicies(text, 'f');
      for (const error of parsed.errors) assert.ok(error.line >= 1 && error.col >= 1, formatPolicyError(error));
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(
      fc.string({
        unit: fc.constantFrom('a', ':', ' ', '\n', '-', '[', '{', '}', ']', '"', '&', '*', '!', '#', '|', '?', ','),
      }),
      (text) => {
        for (const error of parsePolicies(text, 'f').errors) assert.ok(error.line >= 1, formatPolicyError(error));
      },
    ),
    { numRuns: 300 },
  );
});

test('a Kyverno policy dropped into the policy folder is named for what it is', async () => {
  const fixtures = new URL('../../../../shared/fixtures/real-world/mutation-pairs/', import.meta.url);
  const files = ['kyverno-policies.add-node-affinity.policy.yaml', 'kyverno-policies.spread-pods.policy.yaml'].map(
    (name) => fileURLToPath(new URL(name, fixtures)),
  );
  const { policies, errors } = await loadPolicies(files);
  assert.deepEqual(policies, []);
  assert.deepEqual(
    errors.map(formatPolicyError),
    files.map(
      (file) =>
        `${file}:2:7: kind: ClusterPolicy is not a SchedulingPolicy: policy files hold only topogate.dev/v1alpha1 SchedulingPolicy documents`,
    ),
  );
});

test('the policies in docs/policy.md load as written', async () => {
  const docs = await readFile(new URL('../../../docs/policy.md', import.meta.url), 'utf8');
  const blocks = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .filter((block) => block.includes('kind: SchedulingPolicy'));
  assert.ok(blocks.length > 0);
  for (const block of blocks) assert.deepEqual(parsePolicies(block, 'docs/policy.md').errors, []);
});

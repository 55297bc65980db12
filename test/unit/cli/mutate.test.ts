import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import fastJsonPatch from 'fast-json-patch';
import { explain, mutate } from '../../../src/cli/mutate.ts';
import type { Command } from '../../../src/cli/command.ts';
import { clusterObjects, NOW } from '../policy/engine-cluster.ts';

const dir = mkdtempSync(join(tmpdir(), 'topogate-mutate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(join(dir, 'cluster.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: clusterObjects() }));
writeFileSync(
  join(dir, 'policies.yaml'),
  `
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: gpu}
spec:
  priority: 10
  match: {resources: [nvidia.com/gpu]}
  onUnsatisfiable: Reject
  rules:
    gpu: {products: ["NVIDIA-H100*"]}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: spread}
spec:
  rules:
    spread: [{topologyKey: topology.kubernetes.io/zone}]
`,
);

const gpuPod = (count: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'trainer', namespace: 'ml', labels: { app: 'trainer' } },
  spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': count } } }] },
});

async function run(
  command: Command,
  args: string[],
  stdin = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const input = new PassThrough();
  input.end(stdin);
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  stdout.on('data', (chunk: Buffer) => chunks.stdout.push(chunk));
  stderr.on('data', (chunk: Buffer) => chunks.stderr.push(chunk));
  const code = await command.run(
    ['--policies', 'policies.yaml', '--topology', 'cluster.json', '--now', new Date(NOW).toISOString(), ...args],
    { stdout, stderr, stdin: input, cwd: dir },
  );
  return { code, stdout: Buffer.concat(chunks.stdout).toString(), stderr: Buffer.concat(chunks.stderr).toString() };
}

function file(name: string, content: unknown): string {
  writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return name;
}

test('a Pod is printed as YAML as the webhook would admit it', async () => {
  const { code, stdout, stderr } = await run(mutate, [file('pod.json', gpuPod(2))]);
  assert.equal(code, 0, stderr);
  const pod = parse(stdout);
  assert.deepEqual(
    pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
      .matchExpressions[0],
    { key: 'nvidia.com/gpu.product', operator: 'In', values: ['NVIDIA-H100-80GB-HBM3'] },
  );
  assert.equal(pod.metadata.annotations['topogate.dev/policies'], 'gpu,spread');
  assert.equal(stderr, '');
});

test('several topology paths may follow --topology, before the input', async () => {
  writeFileSync(
    join(dir, 'extra.json'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'extra',
        labels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-PCIe', 'nvidia.com/gpu.count': '1' },
      },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    }),
  );
  const { code, stdout } = await run(mutate, ['extra.json', file('pod.json', gpuPod(1))]);
  assert.equal(code, 0);
  assert.deepEqual(
    parse(stdout).spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
      .matchExpressions[0].values,
    ['NVIDIA-H100-80GB-HBM3', 'NVIDIA-H100-PCIe'],
  );
});

test('--patch prints the JSON Patch, which yields the same object; --output json prints JSON', async () => {
  const input = gpuPod(1);
  const patch = JSON.parse((await run(mutate, ['--patch', file('pod.json', input)])).stdout);
  const object = JSON.parse((await run(mutate, ['--output', 'json', 'pod.json'])).stdout);
  assert.deepEqual(fastJsonPatch.applyPatch(structuredClone(input), patch, true, false).newDocument, object);
});

test('a workload is decided as its Pods and printed with its template mutated', async () => {
  const cronJob = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'nightly', namespace: 'ml' },
    spec: {
      schedule: '@daily',
      jobTemplate: { spec: { template: { metadata: { labels: { app: 'nightly' } }, spec: gpuPod(1).spec } } },
    },
  };
  const { code, stdout } = await run(mutate, [file('cron.yaml', cronJob)]);
  assert.equal(code, 0);
  const output = parse(stdout);
  assert.equal(output.spec.schedule, '@daily');
  assert.equal(output.spec.jobTemplate.spec.template.metadata.annotations['topogate.dev/policies'], 'gpu,spread');
  assert.equal(
    output.spec.jobTemplate.spec.template.spec.topologySpreadConstraints[0].labelSelector.matchLabels.app,
    'nightly',
  );
});

test('an AdmissionReview on stdin: its request.object is the input, its namespace counts', async () => {
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u',
      operation: 'CREATE',
      namespace: 'ml',
      object: { ...gpuPod(1), metadata: { name: 'x', labels: { app: 'x' } } },
    },
  };
  const { code, stdout } = await run(mutate, ['-'], JSON.stringify(review));
  assert.equal(code, 0);
  assert.equal(parse(stdout).kind, 'Pod');
});

test('warnings go to stderr, one Warning: line each', async () => {
  const pod = { ...gpuPod(1), metadata: { name: 'bare', namespace: 'ml' } };
  const { code, stderr } = await run(mutate, [file('bare.json', pod)]);
  assert.equal(code, 0);
  assert.deepEqual(stderr.trim().split('\n'), [
    'Warning: policy spread: spread[0] dropped: the Pod has none of the selector labels [app.kubernetes.io/name, app.kubernetes.io/instance, app]',
    'Warning: policy spread matched but changed nothing',
  ]);
});

test('a denied Pod exits 1 with the reason on stderr and prints nothing', async () => {
  const { code, stdout, stderr } = await run(mutate, [file('greedy.json', gpuPod(16))]);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(
    stderr,
    /denied the request: policy gpu, rule gpu: no schedulable node satisfies the Pod's placement; the model holds: .*nvidia.com\/gpu.count Gt \[15\]/,
  );
});

test('among several objects, kinds without a pod template are printed unchanged', async () => {
  const text = `apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n${JSON.stringify(gpuPod(1))}\n`;
  const { code, stdout, stderr } = await run(mutate, [file('mixed.yaml', text)]);
  assert.equal(code, 0);
  const [service, pod] = stdout.split('---\n').map((document) => parse(document));
  assert.deepEqual(service, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } });
  assert.equal(pod.metadata.annotations['topogate.dev/policies'], 'gpu,spread');
  assert.match(
    stderr,
    /document 1: kind "Service" is not a Pod or a workload with a pod template .*; printed unchanged/,
  );
});

test('bad input exits 2 with a clear message', async () => {
  for (const [content, message] of [
    ['{', /not valid YAML or JSON/],
    ['kind: Service\nmetadata: {name: s}', /kind "Service" is not a Pod or a workload/],
    ['', /holds no object/],
    [JSON.stringify({ kind: 'Deployment', spec: {} }), /the Deployment has no pod template/],
    [JSON.stringify({ kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1' }), /has no request/],
  ] as const) {
    const { code, stderr } = await run(mutate, [file('bad.yaml', content)]);
    assert.equal(code, 2, content);
    assert.match(stderr, message);
  }
  assert.equal((await run(mutate, ['missing.yaml'])).code, 2);
  assert.equal((await run(mutate, [])).code, 2);
  assert.equal((await run(mutate, ['--output', 'xml', 'pod.json'])).code, 2);
});

test('explain tells the story in text and in JSON', async () => {
  const text = await run(explain, [file('pod.json', gpuPod(2))]);
  assert.equal(text.code, 0);
  assert.match(
    text.stdout,
    /^Pod ml\/trainer\n {2}workload ml\/Pod\/trainer, topology snapshot [0-9a-f]{12}\n {2}nodes: 7 in the model, 4 schedulable for this Pod, 4 allowed by its own placement/,
  );
  assert.match(text.stdout, /policy gpu \(priority 10\): applied\n {2}gpu: added \(4 → 1 nodes\)/);
  const json = JSON.parse((await run(explain, ['--output', 'json', 'pod.json'])).stdout);
  assert.deepEqual(
    json.policies.map((policy: any) => [policy.policy, policy.outcome, policy.nodesBefore, policy.nodesAfter]),
    [
      ['gpu', 'applied', 4, 1],
      ['spread', 'applied', 1, 1],
    ],
  );
  assert.equal(json.patch.length > 0, true);
});

test('a workload is printed as its Pods will be admitted, saying the webhook mutates Pods; a DaemonSet’s get nothing', async () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { template },
  };
  const shown = await run(mutate, ['--output', 'json', file('deployment.json', deployment)]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(
    shown.stderr,
    /^Note: the webhook mutates Pods, not workloads: Deployment shop\/web \(its pod template\) is admitted unchanged/,
  );
  const replica = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-5d8f-x1',
      namespace: 'shop',
      labels: { app: 'web', 'pod-template-hash': '5d8f' },
      ownerReferences: [{ kind: 'ReplicaSet', name: 'web-5d8f', controller: true }],
    },
    spec: template.spec,
  };
  const pod = await run(mutate, ['--patch', file('replica.json', replica)]);
  const fromTemplate = await run(mutate, ['--patch', 'deployment.json']);
  assert.deepEqual(
    JSON.parse(fromTemplate.stdout).filter((op: any) => op.path !== '/metadata/annotations'),
    JSON.parse(pod.stdout).filter((op: any) => op.path !== '/metadata/annotations'),
  );
  assert.ok(JSON.parse(pod.stdout).length > 0);

  const daemonSet = { ...deployment, kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'shop' } };
  const daemon = await run(mutate, ['--output', 'json', file('daemonset.json', daemonSet)]);
  assert.deepEqual(JSON.parse(daemon.stdout), daemonSet);
});

// YAML 1.1 as kubectl reads it, in and out: the real kubectl built with the e2e
// control plane reads a manifest, and topogate's output for it, and must read
// exactly what topogate meant. `kubectl label --local -o json` is kubectl's own
// reader with no server (create --dry-run=client needs one for discovery).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, promisify } from 'node:util';
import fastJsonPatch from 'fast-json-patch';
import { documentValue, parseKubectlYaml } from '../../src/kube/yaml.ts';
import { parsePolicies, policyFromObject } from '../../src/policy/parse.ts';
import { GO_YAML_V2_SCALARS } from '../fixtures/go-yaml-v2-scalars.ts';
import { kubectl } from './harness/kube.ts';
import { binaries } from './harness/versions.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(repo, 'bin', 'topogate.ts');
const LABEL = 'topogate.dev/read-by=kubectl';
const NOW = '2026-01-01T00:00:00Z';
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topogate-yaml11-'));
  await writeFile(
    join(dir, 'spread.yaml'),
    'apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: spread}\nspec:\n  rules:\n    spread: [{topologyKey: topology.kubernetes.io/zone}]\n',
  );
});
after(() => rm(dir, { recursive: true, force: true }));

async function kubectlReads(text: string): Promise<Record<string, any>> {
  const result = await kubectl(
    { kubectl: binaries().kubectl, kubeconfig: '/dev/null' },
    ['label', '--local', '-f', '-', '-o', 'json', LABEL],
    text,
  );
  assert.equal(result.code, 0, result.stderr);
  const object = JSON.parse(result.stdout);
  delete object.metadata.labels['topogate.dev/read-by'];
  if (Object.keys(object.metadata.labels).length === 0) delete object.metadata.labels;
  return object;
}

async function topogateMutate(file: string, ...flags: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    bin,
    'mutate',
    '--policies',
    join(dir, 'spread.yaml'),
    '--topology',
    join(repo, 'examples', 'cluster'),
    '--now',
    NOW,
    ...flags,
    file,
  ]);
  return stdout;
}

/** The Pod a patch is about: the object itself, or a workload's pod template. */
const podOf = (object: Record<string, any>) => (object.kind === 'Pod' ? object : object.spec.template);

const manifests = [
  {
    name: 'a Deployment with octal modes (0400, 0755, 0o700) and yes/no/on/off/y strings',
    read: () => readFile(join(repo, 'test', 'e2e', 'fixtures', 'yaml11-deployment.yaml'), 'utf8'),
    patchOps: 3,
  },
  {
    name: 'a real Run:ai Pod (../shared fixtures) with its projected volumes given octal modes (0644)',
    read: async () =>
      (
        await readFile(
          join(repo, '..', 'shared', 'fixtures', 'real-world', 'pods', 'runai-fgo.fractional-gpu.running-pod.yaml'),
          'utf8',
        )
      ).replaceAll('defaultMode: 420', 'defaultMode: 0644'),
    patchOps: 0,
  },
];

for (const manifest of manifests) {
  test(`kubectl reads topogate's output of ${manifest.name} exactly as topogate meant it`, async () => {
    const text = await manifest.read();
    const file = join(dir, `input-${manifests.indexOf(manifest)}.yaml`);
    await writeFile(file, text);
    const output = await topogateMutate(file);
    const meant = JSON.parse(await topogateMutate(file, '--output', 'json'));
    const patch = JSON.parse(await topogateMutate(file, '--patch')) as fastJsonPatch.Operation[];
    assert.equal(patch.length, manifest.patchOps);

    // What kubectl reads of topogate's YAML is what topogate printed as JSON.
    assert.deepEqual(await kubectlReads(output), meant);
    // topogate read the input as kubectl did: kubectl's reading plus the patch is what topogate meant.
    const input = await kubectlReads(text);
    fastJsonPatch.applyPatch(podOf(input), patch, true);
    assert.deepEqual(input, meant);
  });
}

test('the octal modes and yes/no strings are there to test: kubectl reads 0400 as 256 and "no" as a string', async () => {
  const text = await manifests[0]!.read();
  const file = join(dir, 'deployment.yaml');
  await writeFile(file, text);
  const input = await kubectlReads(text);
  const spec = input.spec.template.spec;
  assert.deepEqual(
    spec.volumes.map((volume: any) => volume.secret?.defaultMode ?? volume.configMap.defaultMode),
    [256, 493],
  );
  assert.equal(spec.volumes[1].configMap.items[0].mode, 448);
  assert.deepEqual(spec.containers[0].args, ['--debug', 'no', 'y', '0400', '1_000']);
  const output = await topogateMutate(file);
  assert.match(output, /defaultMode: 256\n/);
  assert.match(output, /- "no"\n/);
});

test('a policy file reads as the SchedulingPolicy object kubectl would apply from it', async () => {
  const text = `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: yaml11}
spec:
  priority: 010
  match:
    podSelector: {matchLabels: {canary: "on", tier: "no"}}
  rules:
    spread: [{topologyKey: topology.kubernetes.io/zone, maxSkew: 0x2}]
`;
  const fromFile = parsePolicies(text, 'yaml11.yaml');
  assert.deepEqual(fromFile.errors, []);
  const fromKubectl = policyFromObject(await kubectlReads(text), 'SchedulingPolicy/yaml11');
  assert.deepEqual(fromKubectl.errors, []);
  const { source: _file, ...policy } = fromFile.policies[0]!;
  const { source: _object, ...object } = fromKubectl.policy!;
  assert.deepEqual(policy, object);
  assert.equal(policy.priority, 8);
  assert.deepEqual(policy.match?.podSelector?.matchLabels, { canary: 'on', tier: 'no' });
});

test('kubectl reads every scalar form of the go-yaml v2 table as the table says (and topogate does too)', async () => {
  // One manifest, one label-free field per form: kubectl refuses a whole document over one value JSON cannot
  // hold, so those are asked one at a time.
  const held = GO_YAML_V2_SCALARS.filter((form) => form.reads !== undefined);
  const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: forms}\nforms:\n${held.map((form, index) => `  f${index}: ${form.text}\n`).join('')}`;
  const read = (await kubectlReads(text)).forms as Record<string, unknown>;
  const mismatches = held.filter((form, index) => !isDeepStrictEqual(read[`f${index}`], form.reads));
  assert.deepEqual(
    mismatches.map((form) => `${form.text}: kubectl ${JSON.stringify(read[`f${held.indexOf(form)}`])}`),
    [],
  );
  const [document] = parseKubectlYaml(text);
  assert.deepEqual((documentValue(document!) as { forms: unknown }).forms, read);
  for (const form of GO_YAML_V2_SCALARS.filter((candidate) => candidate.reads === undefined)) {
    const result = await kubectl(
      { kubectl: binaries().kubectl, kubeconfig: '/dev/null' },
      ['label', '--local', '-f', '-', '-o', 'json', LABEL],
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: forms}\nforms: {f: ${form.text}}\n`,
    );
    assert.notEqual(result.code, 0, `kubectl read ${form.text}: ${result.stdout}`);
  }
});

test('labels e318246315, -e5 and E7 come out of topogate mutate as the strings kubectl reads, never null', async () => {
  const file = join(dir, 'labels.yaml');
  const text =
    'apiVersion: v1\nkind: Pod\nmetadata:\n  name: labels\n  namespace: web\n  labels: {app: web, h: e318246315, i: -e5, j: E7}\nspec:\n  containers: [{name: c, image: i}]\n';
  await writeFile(file, text);
  const output = await topogateMutate(file);
  assert.doesNotMatch(output, /null/);
  const labels = (await kubectlReads(output)).metadata.labels;
  assert.deepEqual(labels, (await kubectlReads(text)).metadata.labels);
  assert.deepEqual(labels, { app: 'web', h: 'e318246315', i: '-e5', j: 'E7' });
});

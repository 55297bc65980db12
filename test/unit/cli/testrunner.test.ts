import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { test as testCommand } from '../../../src/cli/test.ts';
import { runCommand } from './cli-io.ts';
import { policy } from '../policy/loader-cases.ts';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
let dir: string;

const run = (cwd: string, ...args: string[]) => runCommand(testCommand, cwd, args);

const suite = (cases: string) => `apiVersion: topogate.dev/v1alpha1
kind: PolicyTest
metadata: {name: demo}
policies: [policy.yaml]
topology: [cluster.yaml]
cases:
${cases}`;

const node = (name: string, zone: string, extra = '') =>
  `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}, topology.kubernetes.io/zone: ${zone}}}\n${extra}`;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topogate-testrunner-'));
  await writeFile(
    join(dir, 'policy.yaml'),
    policy(
      'rules:\n  nodeLabels: {required: [{key: topology.kubernetes.io/zone, operator: In, values: [a]}]}',
      'zone-a',
    ),
  );
  await writeFile(
    join(dir, 'cluster.yaml'),
    [node('n1', 'a'), node('n2', 'b'), node('n3', 'a', 'spec: {unschedulable: true}\n')].join('---\n'),
  );
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pod =
  '      apiVersion: v1\n      kind: Pod\n      metadata: {name: p}\n      spec: {containers: [{name: c, image: busybox}]}';

test('the example suites in policies/tests pass', async () => {
  const result = await run(repo, 'policies/tests');
  assert.equal(result.code, 0, result.stdout);
  assert.doesNotMatch(result.stdout, /^FAIL/m);
  assert.match(result.stdout, /^\d+ passed, 0 failed \(\d+ suites\)$/m);
});

test('a passing case', async () => {
  await writeFile(
    join(dir, 'topogate-test.yaml'),
    suite(
      `  - name: zone a only\n    pod:\n${pod}\n    expect:\n      applied: [zone-a]\n      nodes: [n1]\n      warnings: []\n      fields: {/metadata/annotations/topogate.dev~1policies: zone-a, /spec/nodeName: null}\n`,
    ),
  );
  assert.deepEqual(await run(dir, '.'), {
    code: 0,
    stdout: 'PASS demo › zone a only\n\n1 passed, 0 failed (1 suite)\n',
    stderr: '',
  });
});

test('each difference is reported, and the run fails', async () => {
  await mkdir(join(dir, 'failing'), { recursive: true });
  await writeFile(
    join(dir, 'failing', 'topogate-test.yaml'),
    suite(
      `  - name: wrong on every count\n    pod:\n${pod}\n    expect:\n      allowed: false\n      applied: []\n      nodes: [n1, n2]\n      fields: {/spec/schedulerName: custom}\n      warnings: [dropped]\n`,
    )
      .replace('[policy.yaml]', '[../policy.yaml]')
      .replace('[cluster.yaml]', '[../cluster.yaml]'),
  );
  const result = await run(dir, 'failing');
  assert.equal(result.code, 1);
  assert.equal(
    result.stdout,
    [
      'FAIL demo › wrong on every count  (failing/topogate-test.yaml)',
      '     - allowed: expected false, got true',
      '     - applied: expected [], got ["zone-a"]',
      '     - nodes differ:',
      '         expected:   ["n1","n2"]',
      '         got:        ["n1"]',
      '         missing:    n2',
      '     - /spec/schedulerName: expected "custom", got (absent)',
      '     - warnings: none contains "dropped"; got []',
      '',
      '0 passed, 1 failed (1 suite)',
      '',
    ].join('\n'),
  );
});

test('a claim is decided by the dra rule: its fields are checked, and nodes are an error', async () => {
  await mkdir(join(dir, 'claims'), { recursive: true });
  await writeFile(join(dir, 'claims', 'policy.yaml'), policy('rules:\n  dra: {alignBy: numaNode}', 'align'));
  const claim =
    '      apiVersion: resource.k8s.io/v1\n      kind: ResourceClaim\n      metadata: {name: c}\n      spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}';
  const constraints = '/spec/devices/constraints';
  await writeFile(
    join(dir, 'claims', 'topogate-test.yaml'),
    suite(
      `  - name: aligned\n    pod:\n${claim}\n    expect:\n      applied: [align]\n      fields: {${constraints}: [{requests: [gpu], matchAttribute: resource.kubernetes.io/numaNode}]}\n` +
        `  - name: wrong\n    pod:\n${claim}\n    expect:\n      nodes: [n1]\n      fields: {${constraints}: null}\n`,
    ).replace('[cluster.yaml]', '[../cluster.yaml]'),
  );
  const result = await run(dir, 'claims');
  assert.equal(result.code, 1);
  assert.equal(
    result.stdout,
    [
      'PASS demo › aligned',
      'FAIL demo › wrong  (claims/topogate-test.yaml)',
      '     - nodes: a ResourceClaim is not placed on nodes; expect fields of it instead',
      `     - ${constraints}: expected null, got [{"requests":["gpu"],"matchAttribute":"resource.kubernetes.io/numaNode"}]`,
      '',
      '1 passed, 1 failed (1 suite)',
      '',
    ].join('\n'),
  );
});

test('an invalid suite is reported with file:line:col', async () => {
  await mkdir(join(dir, 'invalid'), { recursive: true });
  await writeFile(
    join(dir, 'invalid', 'topogate-test.yaml'),
    suite(`  - name: typo\n    pod: p.yaml\n    expect: {alowed: true}\n`),
  );
  const result = await run(dir, 'invalid/topogate-test.yaml');
  assert.equal(result.code, 1);
  assert.equal(
    result.stdout,
    'FAIL invalid/topogate-test.yaml: invalid suite:\ninvalid/topogate-test.yaml:9:14: cases[0].expect.alowed: unknown field (did you mean "allowed"?)\n\n0 passed, 1 failed (1 suite)\n',
  );
});

test('bad usage exits 2; a folder without suites fails', async () => {
  assert.equal((await run(dir)).code, 2);
  assert.equal((await run(dir, '--watch', '.')).code, 2);
  await mkdir(join(dir, 'empty'), { recursive: true });
  assert.equal(
    (await run(dir, 'empty')).stdout,
    'FAIL empty: no topogate-test.yaml found\n\n0 passed, 1 failed (0 suites)\n',
  );
});

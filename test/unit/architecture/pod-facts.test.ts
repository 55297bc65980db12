// The decision memo keys on the Pod's facts (JSON.stringify(PodFacts)), and the decision core can read
// nothing else of a Pod: it may not import the raw Pod type nor the parser (eslint no-restricted-imports,
// eslint.config.js). Here: that guard holds on src/ and catches a rule that would break it, and by
// construction two Pods that differ outside the facts share their key and their decision, while a
// difference in a fact makes another key.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { podRequest } from '../../../src/kube/podFacts.ts';
import type { Pod } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { clusterObjects, NOW, OPTIONS, pod, policy } from '../policy/engine-cluster.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: root });
const restricted = (results: ESLint.LintResult[]) =>
  results.flatMap((result) =>
    result.messages
      .filter((message) => message.ruleId === 'no-restricted-imports')
      .map((message) => `${result.filePath.replace(root, '')}: ${message.message.split('.')[0]}`),
  );

test('the decision core imports no raw Pod type and no Pod parser', async () => {
  assert.deepEqual(restricted(await eslint.lintFiles(['src/policy/'])), []);
});

test('a rule or the engine that imports the raw Pod, or parses one, fails the lint', async () => {
  const cases = [
    ["import type { Pod } from '../../kube/types.ts';\nexport type Seen = Pod;\n", 'src/policy/rules/priority.ts'],
    ["import type { KubeObject } from '../kube/types.ts';\nexport type Seen = KubeObject;\n", 'src/policy/engine.ts'],
    ["import { podFacts } from '../../kube/podFacts.ts';\nexport const read = podFacts;\n", 'src/policy/rules/gpu.ts'],
  ] as const;
  for (const [text, filePath] of cases) {
    const found = restricted(await eslint.lintText(text, { filePath: `${root}${filePath}` }));
    assert.equal(found.length, 1, `${filePath}: ${found.join('; ')}`);
  }
});

const owned = {
  name: 'web-1',
  labels: { app: 'web' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs', controller: true }],
};
const base = (): Pod =>
  pod({ containers: [{ name: 'c', image: 'web:1', resources: { requests: { cpu: '1' } } }] }, { ...owned });

/** Fields no rule reads: the facts leave them out. */
const outsideFacts: readonly [string, (p: Pod) => void][] = [
  ['the image', (p) => void (p.spec!.containers![0]!.image = 'web:2')],
  ['the uid and name', (p) => void Object.assign(p.metadata!, { uid: 'u-2', name: 'web-2' })],
  ['an env var', (p) => void Object.assign(p.spec!.containers![0]!, { env: [{ name: 'A', value: '1' }] })],
  ['the priority class', (p) => void Object.assign(p.spec!, { priorityClassName: 'high' })],
  ['the grace period', (p) => void Object.assign(p.spec!, { terminationGracePeriodSeconds: 5 })],
];

/** Fields a decision reads: each makes another key. */
const inFacts: readonly [string, (p: Pod) => void][] = [
  ['a label', (p) => void (p.metadata!.labels = { app: 'api' })],
  ['a CPU request', (p) => void (p.spec!.containers![0]!.resources = { requests: { cpu: '2' } })],
  ['a node selector', (p) => void Object.assign(p.spec!, { nodeSelector: { disk: 'ssd' } })],
  ['the scheduler', (p) => void Object.assign(p.spec!, { schedulerName: 'numa' })],
];

const variant = (edit: (p: Pod) => void): Pod => {
  const copy = structuredClone(base());
  edit(copy);
  return copy;
};
const key = (p: Pod) => JSON.stringify(podRequest(p, 'default').facts);

test('Pods that differ only outside the facts have one memo key and one decision', () => {
  const policies = [
    policy('spread', {
      spread: [{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }],
    }),
  ];
  const decideFresh = (p: Pod) =>
    decide(podRequest(p, 'default'), compile(policies, buildSnapshot(clusterObjects(), { now: NOW })), OPTIONS);
  const expected = decideFresh(base());
  assert.ok(expected.patch.length > 0, 'the policy changes the Pod');
  for (const [what, edit] of outsideFacts) {
    assert.equal(key(variant(edit)), key(base()), what);
    assert.deepEqual(decideFresh(variant(edit)), expected, what);
  }
});

test('Pods that differ in a fact have different keys', () => {
  for (const [what, edit] of inFacts) assert.notEqual(key(variant(edit)), key(base()), what);
});

// The published JSON Schema: generated from the loader's schema (src/api/v1alpha1/schedulingpolicy.ts), and in
// agreement with the loader on valid and invalid policies, as TypeBox's JSON Schema validator reads it.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { test } from 'node:test';
import fc from 'fast-check';
import Schema from 'typebox/schema';
import { parseAllDocuments } from 'yaml';
import { schemaText } from '../../../src/api/schema/json.ts';
import { publishedSchemas } from '../../../scripts/generated.ts';
import { parsePolicies } from '../../../src/policy/parse.ts';
import { invalid, policy } from './loader-cases.ts';

type Json = Readonly<Record<string, unknown>>;
const root = publishedSchemas['schedulingpolicy.schema.json']!();
const rootValidator = Schema.Compile(root as never);

/** The first violation of `schema` by `value`, as "instancePath: message", or undefined. */
function violation(schema: Json, value: unknown): string | undefined {
  const validator = schema === root ? rootValidator : Schema.Compile(schema as never);
  const [valid, errors] = validator.Errors(value);
  if (valid) return undefined;
  const first = errors.at(-1);
  return `${first?.instancePath || '/'}: ${first?.message}`;
}

const documentsOf = (text: string): unknown[] =>
  parseAllDocuments(text)
    .filter((doc) => doc.errors.length === 0 && doc.contents !== null)
    .map((doc) => doc.toJS());

for (const [name, generate] of Object.entries(publishedSchemas)) {
  test(`schema/${name} is the generated schema`, async () => {
    const published = await readFile(new URL(`../../../schema/${name}`, import.meta.url), 'utf8');
    assert.equal(published, schemaText(generate()), 'regenerate it: npm run generate');
  });
}

test('the schema accepts every example policy in policies/', async () => {
  const dir = new URL('../../../policies/', import.meta.url);
  const files = (await readdir(dir)).filter((name) => /\.ya?ml$/.test(name));
  assert.ok(files.length >= 5, 'policies/ holds the example policies');
  for (const name of files) {
    const text = await readFile(new URL(name, dir), 'utf8');
    assert.deepEqual(parsePolicies(text, name).errors, [], name);
    for (const document of documentsOf(text)) assert.equal(violation(root, document), undefined, name);
  }
});

test('the schema accepts what the loader accepts', () => {
  const valid = policy(
    'priority: -3\nmatch:\n  namespaces: ["ml-?"]\n  podSelector: {matchLabels: {app.kubernetes.io/name: web, tier: ""}}\nrules:\n  nodeLabels: {required: [{key: cores, operator: Gt, values: ["+8"]}, {key: disk, operator: Exists}]}\n  latency: {to: {service: kube-system/etcd}, maxRttMs: 0}\n  spread: [{topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, minDomains: 2}]',
  );
  assert.deepEqual(parsePolicies(valid, 'p.yaml').errors, []);
  assert.equal(violation(root, documentsOf(valid)[0]), undefined);
});

test('the suite schema accepts the example suites and rejects a misspelt expectation', async () => {
  const suiteSchema = publishedSchemas['policytest.schema.json']!();
  const tests = new URL('../../../policies/tests/', import.meta.url);
  const suites = (await readdir(tests, { recursive: true })).filter((name) => name.endsWith('topogate-test.yaml'));
  assert.ok(suites.length >= 3);
  for (const name of suites) {
    const [suite] = documentsOf(await readFile(new URL(name, tests), 'utf8'));
    assert.equal(violation(suiteSchema, suite), undefined, name);
    const cases = (suite as { cases: { expect: Record<string, unknown> }[] }).cases;
    cases[0]!.expect = { alowed: true };
    assert.match(violation(suiteSchema, suite) ?? '', /^\/cases\/0\/expect: must not have additional properties$/);
  }
});

for (const { name, text, loaderOnly } of invalid) {
  if (loaderOnly) continue;
  test(`the schema rejects: ${name}`, () => {
    const documents = documentsOf(text);
    assert.ok(documents.length > 0);
    assert.ok(
      documents.some((document) => violation(root, document) !== undefined),
      'no violation found',
    );
  });
}

test('on random edits of a valid policy, the schema and the loader agree', () => {
  const base = {
    apiVersion: 'topogate.dev/v1alpha1',
    kind: 'SchedulingPolicy',
    metadata: { name: 'p' },
    spec: {
      priority: 1,
      match: {
        namespaces: ['ml-*'],
        podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['x'] }] },
        qosClasses: ['Guaranteed'],
      },
      rules: {
        nodeLabels: {
          required: [{ key: 'disk', operator: 'Exists' }],
          preferred: [{ weight: 5, requirements: [{ key: 'cores', operator: 'Gt', values: ['4'] }] }],
        },
        gpu: { products: ['NVIDIA-*'], minMemoryMiB: 100 },
        numa: { maxCandidates: 2 },
        latency: { to: { zone: 'a' }, maxRttMs: 1 },
        spread: [{ topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2 }],
      },
    },
  };
  const paths = [
    ['spec', 'priority'],
    ['spec', 'onUnsatisfiable'],
    ['spec', 'match', 'namespaces'],
    ['spec', 'match', 'namespaces', 0],
    ['spec', 'match', 'resources'],
    ['spec', 'match', 'podSelector', 'matchExpressions', 0, 'operator'],
    ['spec', 'match', 'podSelector', 'matchExpressions', 0, 'values'],
    ['spec', 'match', 'podSelector', 'matchLabels'],
    ['spec', 'match', 'qosClasses', 0],
    ['spec', 'rules', 'nodeLabels', 'required', 0, 'operator'],
    ['spec', 'rules', 'nodeLabels', 'required', 0, 'values'],
    ['spec', 'rules', 'nodeLabels', 'required', 0, 'key'],
    ['spec', 'rules', 'nodeLabels', 'preferred', 0, 'weight'],
    ['spec', 'rules', 'nodeLabels', 'preferred', 0, 'requirements', 0, 'values'],
    ['spec', 'rules', 'gpu', 'products'],
    ['spec', 'rules', 'gpu', 'minMemoryMiB'],
    ['spec', 'rules', 'gpu', 'mode'],
    ['spec', 'rules', 'gpu', 'weight'],
    ['spec', 'rules', 'numa', 'maxCandidates'],
    ['spec', 'rules', 'numa', 'schedulerName'],
    ['spec', 'rules', 'latency', 'to'],
    ['spec', 'rules', 'latency', 'maxRttMs'],
    ['spec', 'rules', 'spread', 0, 'whenUnsatisfiable'],
    ['spec', 'rules', 'spread', 0, 'minDomains'],
    ['spec', 'rules', 'spread', 0, 'maxSkew'],
    ['spec', 'rules', 'spread', 0, 'topologyKey'],
    ['spec', 'rules', 'spread', 0, 'selectorLabelKeys'],
    ['spec', 'rules'],
    ['metadata', 'name'],
    ['spec', 'rules', 'nodeLabels'],
    ['spec', 'extra'],
  ] as const;
  const pool = [
    0,
    1,
    100,
    101,
    -1,
    1.5,
    'x',
    '',
    'In',
    'NotIn',
    'Exists',
    'Gt',
    'Lt',
    ['a'],
    [],
    ['1'],
    ['1', '2'],
    ['a b'],
    {},
    null,
    true,
    false,
    'a/b',
    'A_b',
    '-a',
    'ml-*',
    'a[b]',
    'DoNotSchedule',
    'ScheduleAnyway',
    'Required',
    'Preferred',
    'Reject',
    { zone: 'a' },
    { etcdLeader: true },
    { etcdLeader: false },
    { zone: 'a', service: 'a/b' },
    { service: 'ns/svc' },
    { service: 'svc' },
    { app: 'web' },
    { 'a b': 'x' },
    ['Guaranteed'],
    { required: [] },
    { gpu: {} },
  ];
  const edit = fc.tuple(fc.constantFrom(...paths), fc.constantFrom(...pool));
  fc.assert(
    fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
      const document: Record<string, unknown> = structuredClone(base);
      for (const [path, value] of edits) setAt(document, path, structuredClone(value));
      const loaderErrors = parsePolicies(JSON.stringify(document), 'p.json').errors.map((error) => error.message);
      const schemaViolation = violation(root, document);
      assert.equal(
        schemaViolation === undefined,
        loaderErrors.length === 0,
        `loader: ${loaderErrors.join('; ') || 'accepts'}; schema: ${schemaViolation ?? 'accepts'}`,
      );
    }),
    { numRuns: 500 },
  );
});

function setAt(document: Record<string, unknown>, path: readonly (string | number)[], value: unknown): void {
  let node: unknown = document;
  for (const segment of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return;
    node = (node as Record<string | number, unknown>)[segment];
  }
  if (typeof node === 'object' && node !== null) (node as Record<string | number, unknown>)[path.at(-1)!] = value;
}

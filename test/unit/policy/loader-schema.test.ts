// The published JSON Schema: generated from the loader's schema, and in
// agreement with the loader on valid and invalid policies. The checker below
// covers exactly the JSON Schema keywords the file uses and fails on any other.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { publishedSchemas, schemaText } from '../../../src/policy/schema/json.ts';
import { parsePolicies } from '../../../src/policy/parse.ts';
import { invalid, policy } from './loader-cases.ts';

type Json = Readonly<Record<string, unknown>>;
const root = publishedSchemas['schedulingpolicy.schema.json']!();
const annotations = new Set(['$schema', 'title', 'description', 'default', '$defs']);

/** The first violation of `schema` by `value`, as "path: keyword", or undefined. */
function violation(schema: Json, value: unknown, path = ''): string | undefined {
  for (const [keyword, argument] of Object.entries(schema)) {
    if (annotations.has(keyword) || keyword === 'then') continue;
    const problem = checkKeyword(keyword, argument, schema, value, path);
    if (problem) return `${path || '/'}: ${keyword}${problem === true ? '' : ` ${problem}`}`;
  }
  return undefined;
}

function checkKeyword(
  keyword: string,
  argument: unknown,
  schema: Json,
  value: unknown,
  path: string,
): boolean | string | undefined {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const entries = isObject ? Object.entries(value as Json) : [];
  const sub = argument as Json;
  switch (keyword) {
    case '$ref':
      return violation(
        (root.$defs as Record<string, Json>)[String(argument).replace('#/$defs/', '')] ??
          assert.fail(`dangling ${argument}`),
        value,
        path,
      );
    case 'type':
      return !hasType(argument as string | string[], value);
    case 'const':
      return value !== argument;
    case 'enum':
      return !(argument as unknown[]).includes(value);
    case 'properties':
      return entries
        .map(([key, item]) => (sub[key] ? violation(sub[key] as Json, item, `${path}/${key}`) : undefined))
        .find(Boolean);
    case 'additionalProperties':
      return entries
        .filter(([key]) => !Object.hasOwn((schema.properties as Json | undefined) ?? {}, key))
        .map(([key, item]) =>
          argument === false ? `${path}/${key} not allowed` : violation(sub, item, `${path}/${key}`),
        )
        .find(Boolean);
    case 'propertyNames':
      return entries.map(([key]) => violation(sub, key, `${path}/${key}`)).find(Boolean);
    case 'required':
      return isObject && (argument as string[]).find((key) => !Object.hasOwn(value as Json, key));
    case 'minProperties':
      return isObject && entries.length < (argument as number);
    case 'maxProperties':
      return isObject && entries.length > (argument as number);
    case 'items':
      return Array.isArray(value) && value.map((item, index) => violation(sub, item, `${path}/${index}`)).find(Boolean);
    case 'minItems':
      return Array.isArray(value) && value.length < (argument as number);
    case 'maxItems':
      return Array.isArray(value) && value.length > (argument as number);
    case 'minimum':
      return typeof value === 'number' && value < (argument as number);
    case 'maximum':
      return typeof value === 'number' && value > (argument as number);
    case 'exclusiveMinimum':
      return typeof value === 'number' && value <= (argument as number);
    case 'pattern':
      return typeof value === 'string' && !new RegExp(argument as string, 'u').test(value);
    case 'minLength':
      return typeof value === 'string' && [...value].length < (argument as number);
    case 'maxLength':
      return typeof value === 'string' && [...value].length > (argument as number);
    case 'anyOf':
      return (argument as Json[]).every((part) => violation(part, value, path) !== undefined);
    case 'allOf':
      return (argument as Json[]).map((part) => violation(part, value, path)).find(Boolean);
    case 'if':
      return violation(sub, value, path) === undefined && schema.then !== undefined
        ? violation(schema.then as Json, value, path)
        : undefined;
    default:
      return assert.fail(`the schema uses ${keyword}, which this checker does not know`);
  }
}

function hasType(type: string | string[], value: unknown): boolean {
  if (Array.isArray(type)) return type.some((one) => hasType(one, value));
  if (type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'integer') return Number.isInteger(value);
  return typeof value === type;
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
    assert.match(violation(suiteSchema, suite) ?? '', /\/cases\/0\/expect\/alowed not allowed$/);
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

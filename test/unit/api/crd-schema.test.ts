// Every topogate.dev CRD is generated from its kind's source (src/api/v1alpha1/): here, that the
// committed files are what the sources generate, that `npm run generate -- --check` would fail on a file
// edited by hand, that each schema is structural as the API server demands, and that every check JSON
// Schema says with allOf, anyOf, if, propertyNames or min/maxProperties is said in CEL too (proven on a
// real API server by test/e2e/manifests.test.ts).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { manifestsDir, readManifests } from '../../../src/cli/manifests.ts';
import { crdName, crdSchema, customResourceDefinition } from '../../../src/api/crd.ts';
import { refinement } from '../../../src/api/schema/refine.ts';
import { kinds } from '../../../src/api/v1alpha1/kinds.ts';
import { crdPath, staleFiles } from '../../../scripts/generated.ts';

type Node = Record<string | symbol, any>;

const repo = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, repo), 'utf8');
const crds = readdirSync(new URL('manifests/crds/', repo));

const installed = await readManifests(manifestsDir);
const committedCrd = (name: string) => installed.find((object) => object.metadata?.name === name) as Node;
const policySpec = kinds.find((kind) => kind.resource.kind === 'SchedulingPolicy')!.spec as Node;

test('the committed generated files are what the sources generate (npm run generate -- --check)', () => {
  assert.deepEqual(staleFiles(read, crds), []);
  for (const kind of kinds)
    assert.deepEqual(committedCrd(crdName(kind)), customResourceDefinition(kind), crdName(kind));
});

test('every CRD in manifests/crds is generated from a kind of src/api/v1alpha1', () => {
  const generated = kinds.map((kind) => crdPath(kind).replace('manifests/crds/', ''));
  assert.deepEqual([...crds].sort(), generated.sort());
});

for (const kind of kinds) {
  const path = crdPath(kind);
  const schemaPath = `schema/${kind.resource.kind.toLowerCase()}.schema.json`;
  test(`the freshness check names ${path} edited by hand, and ${schemaPath}`, () => {
    const edited = (at: string) => (file: string) =>
      file === at ? read(file).replace(/maxItems"?: (\d+)/, (text) => `${text}0`) : read(file);
    for (const file of [path, schemaPath]) {
      assert.notEqual(edited(file)(file), read(file), `the edit changes ${file}`);
      assert.deepEqual(staleFiles(edited(file), crds), [file]);
    }
  });
}

test('the chart carries each generated CRD byte for byte', () => {
  for (const kind of kinds) {
    const path = crdPath(kind);
    assert.equal(read(path.replace('manifests/', 'charts/topogate/files/')), read(path), path);
  }
});

/** Where `node` breaks the structural schema rules (apiextensions.k8s.io/v1), as "path: what". */
function unstructural(node: Node, path: string, problems: string[]): string[] {
  if (typeof node.type !== 'string') problems.push(`${path}: no single type`);
  for (const keyword of ['$ref', 'const', 'propertyNames', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', '$schema'])
    if (keyword in node) problems.push(`${path}: ${keyword}`);
  if (node.additionalProperties !== undefined && (node.properties || node.additionalProperties === false))
    problems.push(`${path}: additionalProperties beside properties, or false`);
  const keys = node['x-kubernetes-list-map-keys'] as string[] | undefined;
  for (const key of keys ?? [])
    if (!node.items.required?.includes(key) && node.items.properties[key]?.default === undefined)
      problems.push(`${path}: list map key ${key} is neither required nor defaulted`);
  for (const [key, child] of Object.entries((node.properties ?? {}) as Node))
    unstructural(child, `${path}.${key}`, problems);
  if (node.items) unstructural(node.items, `${path}[]`, problems);
  if (typeof node.additionalProperties === 'object') unstructural(node.additionalProperties, `${path}{}`, problems);
  return problems;
}

test('every CRD schema is structural: one type on every node, no $ref, const or JSON-only combinators', () => {
  for (const kind of kinds) assert.deepEqual(unstructural(crdSchema(kind), crdName(kind), []), []);
});

test('the structural check finds a node the API server would refuse', () => {
  const broken = structuredClone(
    committedCrd('schedulingpolicies.topogate.dev').spec.versions[0].schema.openAPIV3Schema,
  );
  broken.properties.spec.properties.priority.const = 1;
  delete broken.properties.spec.properties.rules.properties.gpu.type;
  assert.deepEqual(unstructural(broken, 'schema', []), [
    'schema.spec.priority: const',
    'schema.spec.rules.gpu: no single type',
  ]);
});

const jsonOnly = ['allOf', 'anyOf', 'if', 'propertyNames'];

/**
 * The nodes of the source schema with a check the CRD does not make: a JSON-only keyword, or a loader
 * refinement of a map or list, without CEL, minProperties or a list-map type (which refuses duplicates).
 */
function withoutCel(node: Node, path: string, found: string[]): string[] {
  const needs = jsonOnly.filter((keyword) => node[keyword] !== undefined);
  if (node[refinement] && node.type !== 'string') needs.push('a loader refinement');
  const crdSays = ['x-kubernetes-validations', 'x-kubernetes-list-type', 'minProperties'].some(
    (keyword) => node[keyword],
  );
  if (needs.length > 0 && !crdSays) found.push(`${path}: ${needs.join(', ')}`);
  for (const [key, child] of Object.entries((node.properties ?? {}) as Node))
    withoutCel(child, `${path}.${key}`, found);
  if (node.items) withoutCel(node.items, `${path}[]`, found);
  return found;
}

test('what the loader checks beyond a structural schema, the CRD checks in CEL', () => {
  for (const kind of kinds) {
    assert.deepEqual(withoutCel(kind.spec ?? {}, `${kind.resource.kind}.spec`, []), []);
    assert.deepEqual(withoutCel(kind.status, `${kind.resource.kind}.status`, []), []);
  }
  const { nodeLabels, pack } = policySpec.properties.rules.properties;
  const drifted = { properties: { nodeLabels, pack } } as Node;
  for (const key of ['nodeLabels', 'pack'])
    drifted.properties[key] = { ...drifted.properties[key], 'x-kubernetes-validations': undefined };
  assert.deepEqual(withoutCel(drifted, 'rules', []), [
    'rules.nodeLabels: anyOf, a loader refinement',
    'rules.pack: a loader refinement',
  ]);
});

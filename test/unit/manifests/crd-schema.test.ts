// The SchedulingPolicy CRD's openAPIV3Schema is generated from the loader's schema
// (src/policy/schema/crd.ts): here, that the committed files are what the source generates, that
// `npm run generate -- --check` would fail on a stale one, that the schema is structural as the API
// server demands, and that every check JSON Schema says with allOf, anyOf, if, propertyNames or
// min/maxProperties is said in CEL too (proven on a real API server by test/e2e/manifests.test.ts).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { manifestsDir, readManifests } from '../../../src/cli/manifests.ts';
import { policyCrdSchema } from '../../../src/policy/schema/crd.ts';
import { policySpec } from '../../../src/policy/schema/policy.ts';
import { refinement } from '../../../src/policy/schema/refine.ts';
import { staleFiles } from '../../../scripts/generated.ts';

type Node = Record<string | symbol, any>;

const repo = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, repo), 'utf8');
const crds = readdirSync(new URL('manifests/crds/', repo));

const crd = (await readManifests(manifestsDir)).find(
  (object) => object.metadata?.name === 'schedulingpolicies.topogate.dev',
) as Node;
const crdSchema = crd.spec.versions[0].schema.openAPIV3Schema as Node;

test('the committed generated files are what the schemas generate (npm run generate -- --check)', () => {
  assert.deepEqual(staleFiles(read, crds), []);
  assert.deepEqual(crdSchema, policyCrdSchema());
});

test('the freshness check names a file edited by hand, and its chart copy', () => {
  const edited = (path: string) =>
    path === 'manifests/crds/schedulingpolicies.yaml'
      ? read(path).replace('maximum: 100', 'maximum: 1000')
      : read(path);
  assert.deepEqual(staleFiles(edited, crds), ['manifests/crds/schedulingpolicies.yaml']);
  const schemaEdited = (path: string) =>
    path === 'schema/schedulingpolicy.schema.json'
      ? read(path).replace('"maximum": 100', '"maximum": 1000')
      : read(path);
  assert.deepEqual(staleFiles(schemaEdited, crds), ['schema/schedulingpolicy.schema.json']);
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

test('the CRD schema is structural: one type on every node, no $ref, const or JSON-only combinators', () => {
  assert.deepEqual(unstructural(crdSchema, 'schema', []), []);
});

test('the structural check finds a node the API server would refuse', () => {
  const broken = structuredClone(crdSchema);
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
  assert.deepEqual(withoutCel(policySpec, 'spec', []), []);
  const { nodeLabels, pack } = policySpec.properties.rules.properties;
  const drifted = { properties: { nodeLabels, pack } } as Node;
  for (const key of ['nodeLabels', 'pack'])
    drifted.properties[key] = { ...drifted.properties[key], 'x-kubernetes-validations': undefined };
  assert.deepEqual(withoutCel(drifted, 'rules', []), [
    'rules.nodeLabels: anyOf, a loader refinement',
    'rules.pack: a loader refinement',
  ]);
});

// The SchedulingPolicy CRD must accept and default exactly what the loader
// does. The loader publishes its rules as schema/schedulingpolicy.schema.json;
// this walks that schema and the CRD's OpenAPI schema side by side. Rules JSON
// Schema says with if/then, propertyNames or min/maxProperties the CRD says
// in CEL (x-kubernetes-validations), proven on a real API server by the e2e
// suite; here it is enough that such a node carries a CEL rule or the same keyword.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { manifestsDir, readManifests } from '../../../src/cli/manifests.ts';

type Node = Record<string, any>;

const published = JSON.parse(
  await readFile(new URL('../../../schema/schedulingpolicy.schema.json', import.meta.url), 'utf8'),
) as Node;
const crd = (await readManifests(manifestsDir)).find(
  (object) => object.metadata?.name === 'schedulingpolicies.topogate.dev',
) as Node;
const crdSchema = crd.spec.versions[0].schema.openAPIV3Schema as Node;

function resolve(node: Node): Node {
  const ref = node.$ref as string | undefined;
  if (ref === undefined) return node;
  const target = published.$defs[ref.replace('#/$defs/', '')];
  assert.ok(target, `unresolved ${ref}`);
  return resolve(target);
}

/** The facets both schemas can state, normalised: const is a one-value enum, an integer's exclusiveMinimum n is minimum n+1. */
function facets(node: Node): Node {
  const values: unknown[] | undefined = node.const !== undefined ? [node.const] : node.enum;
  const type = node.type ?? (values ? typeof values[0] : undefined);
  const integerFloor =
    type === 'integer' && typeof node.exclusiveMinimum === 'number' ? node.exclusiveMinimum + 1 : undefined;
  const picked: Node = {
    type,
    enum: values,
    minimum: integerFloor ?? node.minimum,
    maximum: node.maximum,
    default: node.default,
    required: node.required ? [...node.required].sort() : undefined,
    minItems: node.minItems,
    minLength: node.minLength,
    pattern: node.pattern,
    properties: node.properties ? Object.keys(node.properties).sort() : undefined,
  };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined));
}

/**
 * Where the CRD states a value pattern the loader applies only under a
 * condition (values of In and NotIn), and states it outright: for node
 * requirements it also admits the negative integers of Gt and Lt, because a CEL
 * rule per value would exceed the API server's cost budget (docs/manifests.md).
 */
const outrightPatterns: Readonly<Record<string, string>> = {
  'spec.rules.nodeLabels.required[].values[]': '^((([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?|-[0-9]+)$',
  'spec.rules.nodeLabels.preferred[].requirements[].values[]':
    '^((([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?|-[0-9]+)$',
};

/** The item patterns the loader applies to a list property only in some branch (allOf: if/then). */
function conditionalItemPatterns(json: Node, key: string): string[] {
  return ((json.allOf ?? []) as Node[])
    .map((branch) => branch.then?.properties?.[key]?.items?.pattern)
    .filter((pattern) => typeof pattern === 'string');
}

const celKeywords = ['if', 'allOf', 'anyOf', 'propertyNames', 'minProperties', 'maxProperties'];

function compare(
  jsonNode: Node,
  crdNode: Node,
  path: string,
  mismatches: string[],
  conditional: readonly string[] = [],
): void {
  const json = resolve(jsonNode);
  const { 'x-kubernetes-validations': rules, ...crdFacets } = crdNode;
  const statedOutright =
    json.pattern === undefined &&
    (conditional.includes(crdFacets.pattern) || outrightPatterns[path] === crdFacets.pattern);
  if (statedOutright) delete crdFacets.pattern;
  try {
    assert.deepEqual(facets(crdFacets), facets(json));
  } catch {
    mismatches.push(`${path}: CRD ${JSON.stringify(facets(crdFacets))} but the loader ${JSON.stringify(facets(json))}`);
  }
  const needsRule = celKeywords.filter((keyword) => json[keyword] !== undefined && crdNode[keyword] === undefined);
  if (needsRule.length > 0 && !(rules?.length > 0))
    mismatches.push(`${path}: the loader checks ${needsRule.join(', ')}, the CRD has no CEL rule for it`);
  for (const [key, child] of Object.entries(json.properties ?? {})) {
    const counterpart = crdNode.properties?.[key];
    if (counterpart)
      compare(child as Node, counterpart, `${path}.${key}`, mismatches, conditionalItemPatterns(json, key));
  }
  if (json.items && crdNode.items) compare(json.items, crdNode.items, `${path}[]`, mismatches, conditional);
  if (typeof json.additionalProperties === 'object' && crdNode.additionalProperties) {
    compare(json.additionalProperties, crdNode.additionalProperties, `${path}{}`, mismatches);
  }
}

test('the CRD spec schema states the same fields, types, enums, ranges, defaults and patterns as the loader', () => {
  const mismatches: string[] = [];
  compare(published.properties.spec, crdSchema.properties.spec, 'spec', mismatches);
  assert.deepEqual(mismatches, []);
});

test('the comparison finds a drift when there is one', () => {
  const drifted = structuredClone(crdSchema.properties.spec);
  drifted.properties.rules.properties.gpu.properties.weight.maximum = 1000;
  delete drifted.properties.rules.properties.latency.properties.to['x-kubernetes-validations'];
  const mismatches: string[] = [];
  compare(published.properties.spec, drifted, 'spec', mismatches);
  // bandwidth.to is the same node as latency.to (a YAML alias), so it drifts with it.
  assert.equal(mismatches.length, 3, mismatches.join('\n'));
  assert.match(mismatches[0]!, /^spec\.rules\.gpu\.weight: /);
  assert.match(mismatches[1]!, /^spec\.rules\.latency\.to: the loader checks minProperties, maxProperties/);
  assert.match(mismatches[2]!, /^spec\.rules\.bandwidth\.to: the loader checks minProperties, maxProperties/);
});

// The exports against the real CRDs of Kueue (v0.17.8) and Volcano (fixtures/README.md): the
// openAPIV3Schema (by TypeBox's JSON Schema validator), the CEL rules by hand, and that the API server's
// pruning would drop no field. And that the exported tree is the discovered one.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Compile } from 'typebox/compile';
import { parse } from 'yaml';
import { discover } from '../../../../src/discover/discover.ts';
import { kueueTopology } from '../../../../src/discover/export/kueue.ts';
import { labelObjects } from '../../../../src/discover/export/labels.ts';
import { volcanoHyperNodes } from '../../../../src/discover/export/volcano.ts';
import { syntheticFleet } from '../../../../bench/discover-fleet.ts';

type Schema = Record<string, any>;

function crdSchema(file: string, version: string): Schema {
  const crd = parse(readFileSync(new URL(`fixtures/${file}`, import.meta.url), 'utf8'));
  return crd.spec.versions.find((entry: Schema) => entry.name === version).schema.openAPIV3Schema;
}

/** Field paths the API server would prune: not in the schema's properties (metadata is the API server's). */
function pruned(value: unknown, schema: Schema, path = ''): string[] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => pruned(item, schema.items ?? {}, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null || path === '.metadata') return [];
  if (schema.additionalProperties || schema['x-kubernetes-preserve-unknown-fields']) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    schema.properties?.[key] ? pruned(child, schema.properties[key], `${path}.${key}`) : [`${path}.${key}`],
  );
}

function valid(schema: Schema, object: unknown): string[] {
  const validator = Compile(schema);
  return [
    ...[...validator.Errors(object)].map((error) => `${error.instancePath} ${error.message}`),
    ...pruned(object, schema).map((path) => `${path} would be pruned`),
  ];
}

const fleet = syntheticFleet({ seed: 21, zones: 3, blocksPerZone: 2, racksPerBlock: 3, nodesPerRack: 4, degraded: 1 });
const discovery = discover(fleet.pairs, fleet.nodes);
const kueueSchema = crdSchema('kueue.x-k8s.io_topologies.yaml', 'v1beta2');
const volcanoSchema = crdSchema('topology.volcano.sh_hypernodes.yaml', 'v1alpha1');

test('the fleet has the three levels the exports are checked on', () => assert.equal(discovery.levels, 3));

test('the Kueue Topology is valid for Kueue v0.17 and lists the tier labels coarsest first, then hostname', () => {
  const topology = kueueTopology(discovery);
  assert.deepEqual(valid(kueueSchema, topology), []);
  const labels = topology.spec.levels.map((level) => level.nodeLabel);
  assert.deepEqual(labels, [
    'topogate.dev/tier-3',
    'topogate.dev/tier-2',
    'topogate.dev/tier-1',
    'kubernetes.io/hostname',
  ]);
  // The CRD's CEL rules: unique levels, hostname only at the lowest.
  assert.equal(new Set(labels).size, labels.length);
  assert.equal(labels.indexOf('kubernetes.io/hostname'), labels.length - 1);
  assert.equal(topology.apiVersion, 'kueue.x-k8s.io/v1beta2');
});

test('the checks can fail: a Topology without levels, or a HyperNode with an unknown member type', () => {
  assert.notDeepEqual(valid(kueueSchema, { ...kueueTopology(discovery), spec: { levels: [] } }), []);
  const [hyperNode] = volcanoHyperNodes(discovery);
  const broken = { ...hyperNode, spec: { ...hyperNode!.spec, members: [{ type: 'Rack', selector: {} }], extra: 1 } };
  assert.deepEqual(valid(volcanoSchema, broken).length, 2);
});

test('Volcano HyperNodes are valid and form the discovered tree: tier 1 holds nodes, each tier the one below', () => {
  const hyperNodes = volcanoHyperNodes(discovery);
  for (const hyperNode of hyperNodes) {
    assert.deepEqual(valid(volcanoSchema, hyperNode), [], hyperNode.metadata.name);
    // The CEL rule: exactly one of exactMatch, regexMatch, labelMatch.
    for (const member of hyperNode.spec.members) assert.deepEqual(Object.keys(member.selector), ['exactMatch']);
  }
  const byName = new Map(hyperNodes.map((hyperNode) => [hyperNode.metadata.name, hyperNode]));
  assert.equal(byName.size, hyperNodes.length, 'one HyperNode per name');
  assert.deepEqual(
    [3, 2, 1].map((tier) => hyperNodes.filter((hyperNode) => hyperNode.spec.tier === tier).length),
    discovery.tiers.map((tier) => tier.groups),
  );
  for (const [node, groups] of Object.entries(discovery.nodes)) {
    const rack = byName.get(groups[2]!)!;
    assert.ok(rack.spec.members.some((member) => member.type === 'Node' && member.selector.exactMatch.name === node));
    for (const level of [0, 1]) {
      const members = byName.get(groups[level]!)!.spec.members;
      assert.ok(
        members.some((member) => member.type === 'HyperNode' && member.selector.exactMatch.name === groups[level + 1]),
      );
    }
  }
  const memberships = hyperNodes.flatMap((hyperNode) =>
    hyperNode.spec.members.map((member) => member.selector.exactMatch.name),
  );
  assert.equal(new Set(memberships).size, memberships.length, 'each node and HyperNode has one parent');
});

test('node labels: one partial Node per node with topogate.dev/tier-1 the finest group', () => {
  const objects = labelObjects(discovery);
  assert.equal(objects.length, fleet.names.length);
  for (const object of objects) {
    const groups = discovery.nodes[object.metadata.name]!;
    assert.deepEqual(object.metadata.labels, {
      'topogate.dev/tier-1': groups[2],
      'topogate.dev/tier-2': groups[1],
      'topogate.dev/tier-3': groups[0],
    });
    assert.deepEqual(Object.keys(object).sort(), ['apiVersion', 'kind', 'metadata']);
  }
});

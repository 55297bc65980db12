import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  podPlacementNodes as placementOfFacts,
  requirementNodes,
  termNodes,
} from '../../../src/topology/nodeSelector.ts';
import { podFacts } from '../../../src/kube/podFacts.ts';
import { toleratedNodes } from '../../../src/topology/tolerations.ts';
import type { KubeObject, NodeSelectorRequirement, NodeSelectorTerm, Pod } from '../../../src/kube/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import type { NodeIndex } from '../../../src/topology/model.ts';
import type { NodeSet } from '../../../src/topology/nodeset.ts';

const node = (name: string, labels: Record<string, string>, taints: unknown[] = []): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  spec: { taints },
});

const { nodes } = buildSnapshot(
  [
    node('a', { zone: 'z1', gpus: '8' }),
    node('b', { zone: 'z2', gpus: '2' }),
    node('c', { gpus: 'many' }, [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }]),
    node('d', {}, [
      { key: 'maint', effect: 'NoExecute' },
      { key: 'soft', effect: 'PreferNoSchedule' },
    ]),
  ],
  { now: 0 },
);

/** A term or a Pod's placement as the parser hands them to the core. */
const term = (value: NodeSelectorTerm) =>
  podFacts(
    {
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [value] } } },
      },
    },
    'default',
  ).placement.requiredTerms![0]!;
const podPlacementNodes = (index: NodeIndex, pod: Pod) => placementOfFacts(index, podFacts(pod, 'default').placement);
const names = (index: NodeIndex, set: NodeSet) => [...set.slots()].map((slot) => index.bySlot(slot)!.name).sort();
const matching = (requirement: NodeSelectorRequirement) => names(nodes, requirementNodes(nodes, requirement));

test('every operator, as the scheduler reads it', () => {
  assert.deepEqual(matching({ key: 'zone', operator: 'In', values: ['z1', 'z3'] }), ['a']);
  assert.deepEqual(
    matching({ key: 'zone', operator: 'NotIn', values: ['z1'] }),
    ['b', 'c', 'd'],
    'NotIn holds where the label is missing',
  );
  assert.deepEqual(matching({ key: 'zone', operator: 'Exists' }), ['a', 'b']);
  assert.deepEqual(matching({ key: 'zone', operator: 'DoesNotExist' }), ['c', 'd']);
  assert.deepEqual(
    matching({ key: 'gpus', operator: 'Gt', values: ['2'] }),
    ['a'],
    'a value that is not an integer never compares',
  );
  assert.deepEqual(matching({ key: 'gpus', operator: 'Lt', values: ['3'] }), ['b']);
  assert.deepEqual(matching({ key: 'gpus', operator: 'Gt', values: ['x'] }), []);
  assert.deepEqual(matching({ key: 'gpus', operator: 'Bogus' as never }), []);
});

test('terms AND their expressions and fields; an empty term matches nothing', () => {
  assert.deepEqual(
    names(
      nodes,
      termNodes(
        nodes,
        term({
          matchExpressions: [{ key: 'gpus', operator: 'Exists' }],
          matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a'] }],
        }),
      ),
    ),
    ['b', 'c'],
  );
  assert.deepEqual(
    names(
      nodes,
      termNodes(nodes, term({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['d', 'ghost'] }] })),
    ),
    ['d'],
  );
  assert.deepEqual(
    names(nodes, termNodes(nodes, term({ matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['d'] }] }))),
    [],
  );
  assert.deepEqual(names(nodes, termNodes(nodes, term({}))), []);
  assert.deepEqual(
    names(nodes, termNodes(nodes, term({ matchExpressions: [{ key: 'gpus', operator: 'Exists' }, 'junk' as never] }))),
    [],
    'an entry that is no requirement makes the term match nothing',
  );
});

test("a Pod's placement: nodeSelector AND (terms ORed)", () => {
  const placement = podPlacementNodes(nodes, {
    spec: {
      nodeSelector: { gpus: '8' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] },
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] },
            ],
          },
        },
      },
    },
  });
  assert.deepEqual(names(nodes, placement), ['a']);
  assert.deepEqual(names(nodes, podPlacementNodes(nodes, {})), ['a', 'b', 'c', 'd']);
});

test('tolerated nodes: every NoSchedule and NoExecute taint must be tolerated', () => {
  assert.deepEqual(names(nodes, toleratedNodes(nodes, [])), ['a', 'b']);
  assert.deepEqual(names(nodes, toleratedNodes(nodes, [{ key: 'gpu', operator: 'Exists' }])), ['a', 'b', 'c']);
  assert.deepEqual(
    names(nodes, toleratedNodes(nodes, [{ key: 'maint', operator: 'Exists', effect: 'NoExecute' }])),
    ['a', 'b', 'd'],
    'PreferNoSchedule needs no toleration',
  );
  assert.deepEqual(names(nodes, toleratedNodes(nodes, [{ operator: 'Exists' }])), ['a', 'b', 'c', 'd']);
});

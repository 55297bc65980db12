import assert from 'node:assert/strict';
import { test } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { podFacts } from '../../../src/kube/podFacts.ts';
import { buildPatch, patchedPod, PodChanges } from '../../../src/policy/merge.ts';
import { fixedPath, PatchWriter, pointer, type Path } from '../../../src/policy/patch.ts';
import type { Pod } from '../../../src/kube/types.ts';

const apply = (document: object, operations: readonly object[]) =>
  fastJsonPatch.applyPatch(
    structuredClone(document),
    structuredClone(operations) as fastJsonPatch.Operation[],
    true,
    false,
  ).newDocument;

test('pointers escape ~ and / (RFC 6901)', () => {
  assert.equal(pointer(['metadata', 'annotations', 'a/b~c']), '/metadata/annotations/a~1b~0c');
  assert.equal(pointer(['spec', 'terms', 0, 'x']), '/spec/terms/0/x');
});

test('missing parents are created by one add of the nested value', () => {
  const writer = new PatchWriter({ metadata: { name: 'p' } });
  writer.set(['spec', 'affinity', 'nodeAffinity'], { a: 1 });
  writer.set(['metadata', 'annotations', 'k/1'], 'v');
  assert.deepEqual(writer.operations, [
    { op: 'add', path: '/spec', value: { affinity: { nodeAffinity: { a: 1 } } } },
    { op: 'add', path: '/metadata/annotations', value: { 'k/1': 'v' } },
  ]);
});

test('a fixed path writes what the same path written afresh does, at every depth it creates', () => {
  const write = (path: (...segments: (string | number)[]) => Path) => {
    const writer = new PatchWriter({ metadata: {}, spec: { terms: [{ x: [] }] } });
    writer.set(path('metadata', 'annotations', 'a/b~c'), 'v');
    writer.set(path('metadata', 'annotations', 'a/b~c'), 'w');
    writer.set(path('spec', 'affinity', 'node/affinity'), {});
    writer.append(path('spec', 'terms', 0, 'x'), [1, 2]);
    writer.append(path('spec', 'list'), [3]);
    return writer.operations;
  };
  const written = write(fixedPath);
  assert.deepEqual(
    written.map((operation) => operation.path),
    [
      '/metadata/annotations',
      '/metadata/annotations/a~1b~0c',
      '/spec/affinity',
      '/spec/terms/0/x/-',
      '/spec/terms/0/x/-',
      '/spec/list',
    ],
  );
  assert.deepEqual(
    written,
    write((...segments) => segments),
  );
});

test('later operations see what earlier ones created, without changing their values', () => {
  const document = { spec: {} };
  const writer = new PatchWriter(document);
  writer.set(['spec', 'affinity', 'nodeAffinity', 'required'], { terms: [] });
  writer.append(['spec', 'affinity', 'nodeAffinity', 'preferred'], [{ weight: 1 }]);
  writer.append(['spec', 'affinity', 'nodeAffinity', 'preferred'], [{ weight: 2 }]);
  assert.deepEqual(writer.operations, [
    { op: 'add', path: '/spec/affinity', value: { nodeAffinity: { required: { terms: [] } } } },
    { op: 'add', path: '/spec/affinity/nodeAffinity/preferred', value: [{ weight: 1 }] },
    { op: 'add', path: '/spec/affinity/nodeAffinity/preferred/-', value: { weight: 2 } },
  ]);
  assert.deepEqual(document, { spec: {} }, 'the input is never changed');
  assert.deepEqual(apply(document, writer.operations), {
    spec: { affinity: { nodeAffinity: { required: { terms: [] }, preferred: [{ weight: 1 }, { weight: 2 }] } } },
  });
});

test('a document made for the writer is its view: changed in place, the values given still never changed', () => {
  const shared = [{ weight: 1 }];
  const appended = { weight: 2 };
  const write = (document: object, ownsDocument: boolean) => {
    const writer = new PatchWriter(document, { ownsDocument });
    writer.set(['spec', 'affinity', 'nodeAffinity', 'required'], { terms: [] });
    writer.append(['spec', 'affinity', 'nodeAffinity', 'preferred'], shared);
    writer.append(['spec', 'affinity', 'nodeAffinity', 'preferred'], [appended]);
    writer.set(['spec', 'affinity', 'nodeAffinity', 'preferred', 1, 'weight'], 5);
    writer.append(['spec', 'list'], [3]);
    writer.set(['metadata', 'annotations', 'k'], 'v');
    return writer.operations;
  };
  const made = { spec: { list: [] as number[] }, metadata: { annotations: {} } };
  const operations = write(made, true);
  assert.deepEqual(operations, write({ spec: { list: [] }, metadata: { annotations: {} } }, false));
  assert.deepEqual(made, apply({ spec: { list: [] }, metadata: { annotations: {} } }, operations), 'the view');
  assert.deepEqual([shared, appended], [[{ weight: 1 }], { weight: 2 }]);
  assert.deepEqual(operations[0], {
    op: 'add',
    path: '/spec/affinity',
    value: { nodeAffinity: { required: { terms: [] } } },
  });
});

test('values of the wrong type are replaced, never walked into', () => {
  const document = { spec: { affinity: 'oops', tolerations: {} } };
  const writer = new PatchWriter(document);
  writer.set(['spec', 'affinity', 'nodeAffinity'], {});
  writer.append(['spec', 'tolerations'], [{ key: 'k' }]);
  assert.deepEqual(apply(document, writer.operations), {
    spec: { affinity: { nodeAffinity: {} }, tolerations: [{ key: 'k' }] },
  });
});

test('values given are shared, never changed: later operations copy what they extend', () => {
  const shared = [{ weight: 1, preference: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } }];
  const writer = new PatchWriter({});
  writer.set(['spec', 'preferred'], shared);
  writer.append(['spec', 'preferred'], [{ weight: 2 }]);
  writer.set(['spec', 'preferred', 0, 'weight'], 3);
  assert.deepEqual(shared, [{ weight: 1, preference: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } }]);
  assert.equal(
    (writer.operations[0] as { value: { preferred: unknown } }).value.preferred,
    shared,
    'the value itself, not a copy',
  );
  assert.deepEqual(apply({}, writer.operations), {
    spec: {
      preferred: [{ weight: 3, preference: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } }, { weight: 2 }],
    },
  });
});

test('merge: requirements go into every live term; empty terms and lists stay as written', () => {
  const expression = { key: 'disk', operator: 'In' as const, values: ['nvme'] };
  const cases: [Pod['spec'], unknown][] = [
    [{}, [{ matchExpressions: [expression] }]],
    [{ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } }, []],
    [
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{}, { matchExpressions: [{ key: 'x', operator: 'Exists' }] }],
            },
          },
        },
      },
      [{}, { matchExpressions: [{ key: 'x', operator: 'Exists' }, expression] }],
    ],
    [
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'disk', operator: 'In', values: ['nvme'] }] },
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] },
              ],
            },
          },
        },
      },
      [
        { matchExpressions: [expression] },
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }], matchExpressions: [expression] },
      ],
    ],
  ];
  for (const [spec, expected] of cases) {
    const pod: Pod = { spec };
    const facts = podFacts(pod, 'default');
    const changes = new PodChanges(facts);
    changes.addRequirement(expression);
    const output = apply(pod, buildPatch(patchedPod(facts), changes, {})) as Pod;
    assert.deepEqual(
      output.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
      expected,
    );
  }
});

test('merge: an expression is the same whatever the order of its values', () => {
  const pod: Pod = {
    spec: {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'z', operator: 'In', values: ['b', 'a'] }] }],
          },
        },
      },
    },
  };
  const changes = new PodChanges(podFacts(pod, 'default'));
  assert.deepEqual(changes.addRequirement({ key: 'z', operator: 'In', values: ['a', 'b'] }), { added: false });
  assert.deepEqual(changes.addRequirement({ key: 'z', operator: 'In', values: ['a'] }), { added: true });
});

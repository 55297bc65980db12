import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadTopologyPaths, parseObjects } from '../../../../src/sources/topology/files.ts';

const fixtures = fileURLToPath(new URL('../../../../../shared/fixtures/real-world/', import.meta.url));

describe('loadTopologyPaths on the real-world fixtures', () => {
  it('reads every Node in a folder, in name order, past kubectl-edit comment headers', async () => {
    const objects = await loadTopologyPaths([join(fixtures, 'nodes')]);
    assert.deepEqual(
      objects.map((o) => `${o.kind}/${o.metadata?.name}`),
      [
        'Node/nameValue',
        'Node/minikube',
        'Node/virtual-gpu-node',
        'Node/qa-mig-worker-gpu-a100',
        'Node/qa-mig-worker-gpu-a100',
        'Node/qa-mig-worker-gpu-1',
      ],
    );
  });

  it('reads NodeResourceTopology objects of both versions, skipping empty documents', async () => {
    const objects = await loadTopologyPaths([join(fixtures, 'nrt')]);
    const nrts = objects.filter((o) => o.kind === 'NodeResourceTopology');
    assert.deepEqual(
      nrts.map((o) => `${o.apiVersion} ${o.metadata?.name}`),
      [
        'topology.node.k8s.io/v1alpha1 node1',
        'topology.node.k8s.io/v1alpha1 node1',
        'topology.node.k8s.io/v1alpha2 worker-node-a',
        'topology.node.k8s.io/v1alpha2 worker-node-b',
      ],
    );
  });

  it('accepts flow-style YAML with trailing commas', async () => {
    const [pod] = await loadTopologyPaths([join(fixtures, 'pods/k8s-website.tsc-two-constraints.yaml')]);
    assert.equal(pod?.kind, 'Pod');
  });
});

describe('loadTopologyPaths on written files', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'topogate-files-'));
    await mkdir(join(dir, 'nested/deeper'), { recursive: true });
    await writeFile(
      join(dir, 'a.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: one}\n---\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: two}\n',
    );
    await writeFile(
      join(dir, 'nested/deeper/list.yml'),
      'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}}\n- {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: Node, metadata: {name: n2}}]}\n',
    );
    await writeFile(
      join(dir, 'nested/typed.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'NodeList', items: [{ metadata: { name: 'n3' } }] }),
    );
    await writeFile(join(dir, 'nested/notes.txt'), 'not: [objects');
    await writeFile(join(dir, '.#a.yaml'), 'not: [objects');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads folders recursively (hidden files and other extensions skipped), several documents a file, and flattens lists (typed items get their kind)', async () => {
    const objects = await loadTopologyPaths([dir]);
    assert.deepEqual(
      objects.map((o) => `${o.apiVersion} ${o.kind}/${o.metadata?.name}`),
      ['v1 Namespace/one', 'v1 Namespace/two', 'v1 Node/n1', 'v1 Node/n2', 'v1 Node/n3'],
    );
  });

  it('reads a file named directly whatever its extension', async () => {
    await assert.rejects(loadTopologyPaths([join(dir, 'nested/notes.txt')]), /notes\.txt:1:\d+: /);
  });

  it('names the path that does not exist', async () => {
    await assert.rejects(loadTopologyPaths([join(dir, 'missing')]), {
      message: `${join(dir, 'missing')}: no such file or directory`,
    });
  });
});

describe('parseObjects', () => {
  it('gives line and column of a YAML error', () => {
    assert.throws(() => parseObjects('kind: Node\nmetadata:\n  name: [a\n', 'bad.yaml'), /^Error: bad\.yaml:\d+:\d+: /);
    assert.throws(() => parseObjects('a: b: c\n', 'nested.yaml'), {
      message: 'nested.yaml:1:4: Nested mappings are not allowed in compact mappings',
    });
  });

  it('refuses aliases that expand without bound, naming the file', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f'].entries())
      levels.push(`${name}: &${name} [${Array(9).fill(`*${'abcde'[i]}`).join(', ')}]`);
    assert.throws(() => parseObjects(levels.join('\n'), 'laughs.yaml'), {
      message: 'laughs.yaml: Excessive alias count indicates a resource exhaustion attack',
    });
  });

  it('names the file of a JSON error', () => {
    assert.throws(() => parseObjects('{"kind": ', 'bad.json'), /^Error: bad\.json: /);
  });

  it('refuses a document that is not an object', () => {
    assert.throws(() => parseObjects('- 1\n- 2\n', 'seq.yaml'), { message: 'seq.yaml: document 1 is not an object' });
    assert.throws(() => parseObjects('kind: List\nitems: [3]\n', 'items.yaml'), {
      message: 'items.yaml: List item 1 is not an object',
    });
  });
});

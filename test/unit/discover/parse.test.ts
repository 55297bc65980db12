// The --rtt and --nodes boundary: good input becomes facts, bad input a clear error naming where.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DiscoverInputError, MAX_NODES, parseNodeZones, parseRttPairs } from '../../../src/discover/parse.ts';

const refused = (run: () => unknown, message: RegExp) =>
  assert.throws(run, (error: unknown) => error instanceof DiscoverInputError && message.test(error.message));

test('pairs are read as given', () => {
  assert.deepEqual(parseRttPairs({ pairs: [{ a: 'n1', b: 'n2', rttMs: 0.12, extra: true }] }), [
    { a: 'n1', b: 'n2', rttMs: 0.12 },
  ]);
});

test('a document that is not {"pairs": [...]} is refused', () => {
  for (const document of [null, [], 'pairs', { pairs: {} }, { pair: [] }])
    refused(() => parseRttPairs(document), /expected a JSON object \{"pairs"/);
  refused(() => parseRttPairs({ pairs: [] }), /"pairs" is empty/);
});

test('each bad pair is named by its index, the first few of them', () => {
  refused(() => parseRttPairs({ pairs: [{ a: 'n1', b: 'n2', rttMs: 1 }, 7] }), /^pairs\[1\]: must be an object/);
  refused(() => parseRttPairs({ pairs: [{ a: 'N1', b: 'n2', rttMs: 1 }] }), /^pairs\[0\]\.a: must be a node name/);
  refused(
    () => parseRttPairs({ pairs: [{ a: 'n1', rttMs: 1 }] }),
    /^pairs\[0\]\.b: must be a node name .*not undefined/,
  );
  refused(() => parseRttPairs({ pairs: [{ a: 'n1', b: 'n1', rttMs: 1 }] }), /a node paired with itself \("n1"\)/);
  for (const rttMs of [0, -1, Number.NaN, '1', 1e9, null])
    refused(() => parseRttPairs({ pairs: [{ a: 'n1', b: 'n2', rttMs }] }), /^pairs\[0\]\.rttMs: must be a number/);
  const many = Array.from({ length: 9 }, () => ({ a: 'n1', b: 'n1', rttMs: 1 }));
  assert.throws(
    () => parseRttPairs({ pairs: many }),
    (error: Error) => error.message.split('\n').length === 5 && error.message.includes('pairs[4]'),
  );
});

test(`more than ${MAX_NODES} nodes are refused before any matrix is made`, () => {
  const pairs = Array.from({ length: MAX_NODES }, (_, index) => ({ a: 'hub', b: `n${index}`, rttMs: 1 }));
  refused(() => parseRttPairs({ pairs }), new RegExp(`more than ${MAX_NODES} nodes .* by pairs\\[${MAX_NODES - 1}\\]`));
  assert.equal(parseRttPairs({ pairs: pairs.slice(1) }).length, MAX_NODES - 1);
});

const node = (name: unknown, labels?: unknown) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });

test('a NodeList, a List and Node documents give each node its zone label', () => {
  const zone = (value: string) => ({ 'topology.kubernetes.io/zone': value });
  assert.deepEqual(
    parseNodeZones([
      { kind: 'NodeList', items: [node('n1', zone('a')), node('n2')] },
      { kind: 'List', items: [node('n3', zone('b'))] },
      node('n4', { other: 'x' }),
    ]),
    [
      { name: 'n1', zone: 'a' },
      { name: 'n2', zone: undefined },
      { name: 'n3', zone: 'b' },
      { name: 'n4', zone: undefined },
    ],
  );
});

test('objects that are not Nodes, and bad names or labels, are refused by where they are', () => {
  refused(() => parseNodeZones([{ kind: 'Pod' }]), /^nodes: kind "Pod" is not Node, NodeList or List/);
  refused(() => parseNodeZones([{ kind: 'NodeList', items: 3 }]), /^nodes\.items: must be a list/);
  refused(() => parseNodeZones([{ kind: 'NodeList', items: [node(5)] }]), /^nodes\.items\[0\]\.metadata\.name/);
  refused(
    () => parseNodeZones([node('n1'), node('n2', { 'topology.kubernetes.io/zone': 3 })]),
    /^document 2\.metadata\.labels\["topology\.kubernetes\.io\/zone"\]: must be a string/,
  );
});

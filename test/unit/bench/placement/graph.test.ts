import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseServiceGraph, serviceEdges } from '../../../../bench/placement/graph.ts';

const tiny = {
  name: 'tiny',
  tasksPerSecond: 8,
  services: [
    { name: 'x', replicas: 1, requests: { cpu: '100m' } },
    { name: 'y', replicas: 2, requests: { cpu: '100m' }, stateful: true },
  ],
  bytesPerCall: { c1: 100, c2: 400 },
  pages: { p: [{ from: 'x', to: 'y', call: 'c1', count: 2 }], q: [{ from: 'x', to: 'y', call: 'c2', count: 1 }] },
  tasks: [
    { name: 'A', weight: 1, pages: ['p'] },
    { name: 'B', weight: 3, pages: ['p', 'q'] },
  ],
};

test('calls per second follow the task weights; bytes per call are the calls’ mean', () => {
  // A runs 2/s (4 calls of c1), B 6/s (12 of c1, 6 of c2).
  const [edge, ...rest] = serviceEdges(parseServiceGraph(tiny));
  assert.equal(rest.length, 0);
  assert.equal(edge?.callsPerSecond, 22);
  assert.equal(edge?.bytesPerCall.toFixed(4), (4000 / 22).toFixed(4));
});

test('a call to an unknown service, an unsized call or an unknown page is refused with where it is', () => {
  const bad = (patch: object) => () => parseServiceGraph({ ...tiny, ...patch });
  assert.throws(bad({ pages: { p: [{ from: 'x', to: 'z', call: 'c1', count: 1 }] } }), /pages\.p\[0\]: no service z/);
  assert.throws(bad({ pages: { p: [{ from: 'x', to: 'y', call: 'c9', count: 1 }] } }), /no bytesPerCall for c9/);
  assert.throws(bad({ tasks: [{ name: 'A', weight: 1, pages: ['nope'] }] }), /tasks\[0\]: no page nope/);
  assert.throws(bad({ tasksPerSecond: 0 }), /tasksPerSecond: a positive number/);
});

test('Online Boutique: the load generator asks the frontend 28 pages per 19 weighted tasks', () => {
  const graph = parseServiceGraph(
    JSON.parse(readFileSync(new URL('../../../../bench/data/online-boutique.json', import.meta.url), 'utf8')),
  );
  const edges = serviceEdges(graph);
  const frontend = edges.find((e) => e.from === 'loadgenerator' && e.to === 'frontend');
  // index 1×1, setCurrency 2×2, browseProduct 10×1, addToCart 2×3, viewCart 3×1, checkout 1×4.
  assert.equal(frontend?.callsPerSecond.toFixed(6), ((100 * 28) / 19).toFixed(6));
  assert.equal(
    graph.services
      .filter((s) => s.stateful)
      .map((s) => s.name)
      .join(),
    'redis-cart',
  );
  assert.equal(edges.length, 16);
});

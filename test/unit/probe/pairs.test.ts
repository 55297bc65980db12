// The node-pair figures: each agent's recent round trip per peer, and the
// writer's bounded store of pair medians that topology derivation reads.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PairStore } from '../../../src/probe/pairs.ts';
import { PEER_SAMPLES, PeerRtts } from '../../../src/probe/peer-rtts.ts';

describe('PeerRtts (an agent)', () => {
  it('reports each peer as the median of its last samples, latest first, within the window and the cap', () => {
    const rtts = new PeerRtts();
    for (const ms of [9, 1, 2, 3, 50, 2]) rtts.add('n2', ms, 1000);
    rtts.add('n3', 0.0001, 2000);
    rtts.add('old', 5, 0);
    rtts.add('n4', 4, 3000);
    assert.equal(PEER_SAMPLES, 5, 'the 9 fell out of n2’s samples: median of 1, 2, 3, 50, 2');
    assert.deepEqual(rtts.recent(3000, 2500), [
      { node: 'n4', rttMs: 4 },
      { node: 'n3', rttMs: 0.001 },
      { node: 'n2', rttMs: 2 },
    ]);
    assert.deepEqual(rtts.recent(3000, 2500, 1), [{ node: 'n4', rttMs: 4 }]);
    rtts.retain(new Set(['n2']));
    assert.equal(rtts.size, 1);
  });
});

describe('PairStore (the writer)', () => {
  it('keeps one figure per unordered pair: the median of both agents’ reports', () => {
    const store = new PairStore();
    store.report('b', 'a', 2, 0);
    store.report('a', 'b', 1, 0);
    store.report('a', 'c', 3, 0);
    store.report('a', 'b', 1.5, 0);
    store.report('a', 'a', 1, 0);
    assert.deepEqual(store.pairs(0), [
      { a: 'a', b: 'b', rttMs: 1.75 },
      { a: 'a', b: 'c', rttMs: 3 },
    ]);
  });

  it('holds at most `capacity` pairs, dropping the least recently reported', () => {
    const store = new PairStore({ capacity: 3, maxAgeMs: 60_000 });
    store.report('a', 'b', 1, 0);
    store.report('a', 'c', 1, 0);
    store.report('a', 'd', 1, 0);
    store.report('b', 'a', 1, 1);
    store.report('c', 'd', 1, 2);
    assert.equal(store.size, 3);
    assert.deepEqual(
      store.pairs(2).map(({ a, b }) => a + b),
      ['ab', 'ad', 'cd'],
    );
  });

  it('forgets pairs older than maxAgeMs and pairs of nodes that left, and renumbers nodes that come and go', () => {
    const store = new PairStore({ capacity: 100, maxAgeMs: 1000 });
    store.report('a', 'b', 1, 0);
    store.report('a', 'c', 2, 900);
    assert.deepEqual(
      store.pairs(1500).map(({ a, b }) => a + b),
      ['ac'],
    );
    store.prune(1500, new Set(['a', 'b']));
    assert.equal(store.size, 0);
    // Thousands of short-lived nodes: ids are renumbered, and the pairs left still read right.
    for (let i = 0; i < 5000; i++) {
      store.report(`x${i}`, `y${i}`, 1, 2000);
      store.prune(2000, new Set([`x${i}`, `y${i}`, 'p', 'q']));
    }
    store.report('p', 'q', 7, 2000);
    store.prune(2000, new Set(['p', 'q']));
    assert.deepEqual(store.pairs(2000), [{ a: 'p', b: 'q', rttMs: 7 }]);
  });

  it('keeps 5,000 nodes’ pairs within capacity', () => {
    const store = new PairStore({ capacity: 10_000, maxAgeMs: 60_000 });
    for (let i = 0; i < 5000; i++) for (let j = 1; j <= 4; j++) store.report(`n${i}`, `n${(i + j) % 5000}`, j, i);
    assert.equal(store.size, 10_000);
    const pairs = store.pairs(5000);
    assert.equal(pairs.length, 10_000);
    assert.ok(pairs.every(({ a, b, rttMs }) => a < b && rttMs >= 1 && rttMs <= 4));
  });
});

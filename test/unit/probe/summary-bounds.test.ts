// A peer's summary is bounded to what an honest agent's windows can hold.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_BUCKET, MIN_BUCKET, bucketOf } from '../../../src/probe/histogram.ts';
import { MAX_REPORTED_PEERS } from '../../../src/probe/peer-rtts.ts';
import { acceptSummary, encodeSummary, parseSummary, type AgentSummary } from '../../../src/probe/summary.ts';

const summary = (zones: unknown, peers?: unknown) => ({
  node: 'n1',
  zone: 'a',
  zones,
  ...(peers !== undefined && { peers }),
});

describe('parseSummary bounds', () => {
  it('refuses more samples per zone than a window holds (256), however they are split', () => {
    assert.match(String(parseSummary(summary([{ zone: 'b', buckets: [[bucketOf(1), 1e15]] }]))), /256 samples/);
    assert.match(
      String(
        parseSummary(
          summary([
            {
              zone: 'b',
              buckets: [
                [10, 200],
                [11, 57],
              ],
            },
          ]),
        ),
      ),
      /256 samples/,
    );
    assert.equal(
      typeof parseSummary(
        summary([
          {
            zone: 'b',
            buckets: [
              [10, 200],
              [11, 56],
            ],
          },
        ]),
      ),
      'object',
    );
  });

  it('refuses bucket indexes that bucketOf cannot make (below 1 µs, above 60 s)', () => {
    assert.equal(bucketOf(0), MIN_BUCKET);
    assert.equal(bucketOf(1e12), MAX_BUCKET);
    for (const index of [MIN_BUCKET - 1, MAX_BUCKET + 1, -1e9])
      assert.match(String(parseSummary(summary([{ zone: 'b', buckets: [[index, 1]] }]))), /outside/);
  });

  it('refuses a zone listed twice, and more buckets than samples a window holds', () => {
    const twice = [
      { zone: 'b', buckets: [[10, 1]] },
      { zone: 'b', buckets: [[10, 1]] },
    ];
    assert.match(String(parseSummary(summary(twice))), /appears twice/);
    const many = Array.from({ length: 257 }, (_, i) => [i, 0]);
    assert.match(String(parseSummary(summary([{ zone: 'b', buckets: many }]))), /more buckets/);
  });

  it('reads peers as [node, rttMs], bounded in count and range', () => {
    const good = parseSummary(summary([], [['n2', 0.5]])) as AgentSummary;
    assert.deepEqual(good.peers, [{ node: 'n2', rttMs: 0.5 }]);
    assert.deepEqual(parseSummary(JSON.parse(encodeSummary(good))), good);
    for (const bad of [
      [['n2', 0]],
      [['n2', 1e9]],
      [['n2', '1']],
      [['', 1]],
      [
        ['n2', 1],
        ['n2', 2],
      ],
    ])
      assert.equal(typeof parseSummary(summary([], bad)), 'string', JSON.stringify(bad));
    const tooMany = Array.from({ length: MAX_REPORTED_PEERS + 1 }, (_, i) => [`n${i + 10}`, 1]);
    assert.match(String(parseSummary(summary([], tooMany))), /more than 256 peers/);
  });
});

describe('acceptSummary', () => {
  const known = { zones: new Set(['a', 'b']), nodes: new Set(['n1', 'n2']) };
  const parsed = parseSummary(
    summary(
      [
        { zone: 'b', buckets: [[10, 1]] },
        { zone: 'made-up', buckets: [[10, 1]] },
      ],
      [
        ['n2', 1],
        ['n1', 1],
        ['ghost', 1],
      ],
    ),
  ) as AgentSummary;

  it('takes a summary only for the node and zone it was fetched from', () => {
    assert.match(String(acceptSummary(parsed, { node: 'n2', zone: 'a' }, known)), /speaks for node n1/);
    assert.match(String(acceptSummary(parsed, { node: 'n1', zone: 'b' }, known)), /its zone is a, but node n1 is in b/);
  });

  it('leaves out zones and peer nodes the writer does not know, and the agent itself as its own peer', () => {
    const accepted = acceptSummary(parsed, { node: 'n1', zone: 'a' }, known) as AgentSummary;
    assert.deepEqual(
      accepted.zones.map((z) => z.zone),
      ['b'],
    );
    assert.deepEqual(accepted.peers, [{ node: 'n2', rttMs: 1 }]);
  });
});

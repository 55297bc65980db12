import assert from 'node:assert/strict';
import { test } from 'node:test';
import { burstOf } from '../../../bench/apiserver-report.ts';
import { webhookBuckets } from '../../../bench/apiserver.ts';

const HISTOGRAM = 'apiserver_admission_webhook_admission_duration_seconds';
const BOUNDS = ['0.005', '0.025', '+Inf'] as const;

/** The API server's exposition of one webhook's histogram, cumulative counts per bound, for two operations. */
function metrics(webhook: string, cumulative: readonly [string, number][]): string {
  return ['CREATE', 'UPDATE']
    .flatMap((operation) => [
      ...cumulative.map(
        ([le, count]) =>
          `${HISTOGRAM}_bucket{name="${webhook}",operation="${operation}",le="${le}"} ${operation === 'CREATE' ? count : 1}`,
      ),
      `${HISTOGRAM}_count{name="${webhook}",operation="${operation}"} ${operation === 'CREATE' ? cumulative.at(-1)![1] : 1}`,
    ])
    .join('\n');
}

test('a burst counts the calls it added outside the first bucket, for the named webhook only', () => {
  /** Both webhooks' pages, from their cumulative counts at the bounds 5 ms, 25 ms and +Inf. */
  const page = (topogate: readonly number[], noop: readonly number[]) =>
    [
      metrics(
        'pods.topogate.dev',
        BOUNDS.map((le, i) => [le, topogate[i]!]),
      ),
      metrics(
        'pods.noop.bench',
        BOUNDS.map((le, i) => [le, noop[i]!]),
      ),
    ].join('\n');
  const before = page([3, 4, 4], [0, 0, 0]);
  const after = page([5, 10, 12], [7, 9, 9]);
  const burst = burstOf(
    'burst',
    webhookBuckets(before, 'pods.topogate.dev'),
    webhookBuckets(after, 'pods.topogate.dev'),
    1,
  );
  assert.equal(burst.calls, 8);
  assert.equal(burst.outside, 6);
  assert.equal(burst.firstBucket, 0.005);
  assert.deepEqual(burst.perBucket, [
    { le: 0.005, calls: 2 },
    { le: 0.025, calls: 4 },
    { le: Number.POSITIVE_INFINITY, calls: 2 },
  ]);
  assert.equal(burst.topogate, undefined, 'no own clock was given');
  const noop = burstOf('burst', webhookBuckets(before, 'pods.noop.bench'), webhookBuckets(after, 'pods.noop.bench'), 1);
  assert.equal(noop.calls, 9);
  assert.equal(noop.outside, 2);
});

test("topogate's own clock: its answers in the burst and those over the first bucket", () => {
  const buckets = webhookBuckets(
    metrics('pods.topogate.dev', [
      ['0.005', 1],
      ['+Inf', 1],
    ]),
    'pods.topogate.dev',
  );
  const burst = burstOf('burst', buckets, buckets, 1, {
    before: [
      { le: 0.005, count: 10 },
      { le: Number.POSITIVE_INFINITY, count: 12 },
    ],
    after: [
      { le: 0.005, count: 17 },
      { le: Number.POSITIVE_INFINITY, count: 22 },
    ],
  });
  assert.deepEqual(burst.topogate, { answers: 10, outside: 3 });
});

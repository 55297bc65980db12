import assert from 'node:assert/strict';
import { test } from 'node:test';
import { histogram, metricSum, slowestBucket } from '../../../bench/metrics.ts';

const before = `# HELP topogate_budget_exceeded_total Requests over the latency budget.
# TYPE topogate_budget_exceeded_total counter
topogate_budget_exceeded_total{stage="before_decision"} 3
topogate_budget_exceeded_total{stage="decision"} 1
topogate_budget_exceeded_total_extra 100
topogate_admission_duration_seconds_bucket{le="0.001",outcome="patched"} 5
topogate_admission_duration_seconds_bucket{le="0.005",outcome="patched"} 9
topogate_admission_duration_seconds_bucket{le="+Inf",outcome="patched"} 10
topogate_admission_duration_seconds_bucket{le="0.001",outcome="allowed"} 1
topogate_admission_duration_seconds_bucket{le="0.005",outcome="allowed"} 1
topogate_admission_duration_seconds_bucket{le="+Inf",outcome="allowed"} 1
`;

test('metricSum adds every label set of one metric and nothing of a longer name', () => {
  assert.equal(metricSum(before, 'topogate_budget_exceeded_total'), 4);
  assert.equal(metricSum(before, 'topogate_missing_total'), 0);
});

test('histogram sums the buckets of all label sets, in ascending bounds', () => {
  assert.deepEqual(histogram(before, 'topogate_admission_duration_seconds'), [
    { le: 0.001, count: 6 },
    { le: 0.005, count: 10 },
    { le: Number.POSITIVE_INFINITY, count: 11 },
  ]);
});

test('slowestBucket is the first bucket holding every observation made between two readings', () => {
  const after = before
    .replace('le="0.001",outcome="patched"} 5', 'le="0.001",outcome="patched"} 7')
    .replace('le="0.005",outcome="patched"} 9', 'le="0.005",outcome="patched"} 14')
    .replace('le="+Inf",outcome="patched"} 10', 'le="+Inf",outcome="patched"} 15');
  const name = 'topogate_admission_duration_seconds';
  assert.deepEqual(slowestBucket(histogram(before, name), histogram(after, name)), { lower: 0.001, upper: 0.005 });
  assert.equal(slowestBucket(histogram(before, name), histogram(before, name)), undefined);
});

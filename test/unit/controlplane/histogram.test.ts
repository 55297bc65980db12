import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { histogramOf, observations, quantileOf, since, toMs } from '../../../src/controlplane/histogram.ts';
import { parsePrometheusText } from '../../../src/topology/etcd/prometheus.ts';

const text = `# TYPE d histogram
d_bucket{verb="POST",le="0.005"} 10
d_bucket{verb="POST",le="0.01"} 60
d_bucket{verb="POST",le="0.1"} 100
d_bucket{verb="POST",le="+Inf"} 100
d_bucket{verb="GET",le="0.005"} 1000
d_bucket{verb="GET",le="0.01"} 1000
d_bucket{verb="GET",le="0.1"} 1000
d_bucket{verb="GET",le="+Inf"} 1000
d_sum{verb="POST"} 2
d_count{verb="POST"} 100
`;

describe('histograms', () => {
  const samples = parsePrometheusText(text);

  it('sums the series a filter picks, bucket by bucket', () => {
    const posts = histogramOf(samples, 'd', (labels) => labels.verb === 'POST');
    assert.deepEqual(posts, { bounds: [0.005, 0.01, 0.1, Infinity], counts: [10, 60, 100, 100] });
    assert.equal(observations(histogramOf(samples, 'd')!), 1100);
    assert.equal(histogramOf(samples, 'missing'), undefined);
  });

  it('reads quantiles as histogram_quantile does: linear inside the bucket', () => {
    const posts = histogramOf(samples, 'd', (labels) => labels.verb === 'POST')!;
    // rank 50 of 100 falls in (0.005, 0.01] holding 10..60: 0.005 + 0.005 * 40/50.
    assert.ok(Math.abs(quantileOf(posts, 0.5)! - 0.009) < 1e-12);
    // rank 99 falls in (0.01, 0.1] holding 60..100: 0.01 + 0.09 * 39/40.
    assert.ok(Math.abs(quantileOf(posts, 0.99)! - 0.09775) < 1e-12);
    assert.equal(toMs(quantileOf(posts, 0.99)), 97.8);
    // rank 5 in the first bucket: from 0.
    assert.equal(quantileOf(posts, 0.05), 0.0025);
  });

  it('answers the highest finite bound for a quantile in +Inf, and nothing for no observations', () => {
    const slow = { bounds: [0.01, 0.1, Infinity], counts: [0, 0, 5] };
    assert.equal(quantileOf(slow, 0.99), 0.1);
    assert.equal(quantileOf({ bounds: [0.1, Infinity], counts: [0, 0] }, 0.99), undefined);
  });

  it('subtracts an older scrape, and takes the newer whole after a restart or a change of buckets', () => {
    const older = { bounds: [0.01, Infinity], counts: [5, 10] };
    const newer = { bounds: [0.01, Infinity], counts: [6, 20] };
    assert.deepEqual(since(newer, older), { bounds: [0.01, Infinity], counts: [1, 10] });
    // The slow observations are the window's: its p99 is past 10 ms while the whole life's is not.
    assert.equal(quantileOf(since(newer, older), 0.5), 0.01);
    const restarted = { bounds: [0.01, Infinity], counts: [1, 2] };
    assert.deepEqual(since(restarted, older), restarted);
    const rebucketed = { bounds: [0.02, Infinity], counts: [9, 30] };
    assert.deepEqual(since(rebucketed, older), rebucketed);
    assert.deepEqual(since(newer, undefined), newer);
  });
});

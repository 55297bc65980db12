// The API server's view, as BENCHMARKS.md says it: the target's verdict from the rounds' totals (the Deployment's
// replicas: topogate at most the no-op's count plus 5 of 200), and the section with both webhooks' rows.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  API_SERVER_HEADING,
  apiServerVerdict,
  renderApiServerSection,
  type ApiServerReport,
  type Burst,
  type Run,
} from '../../../bench/apiserver-report.ts';

const burst = (what: string, outside: number): Burst => ({
  what,
  calls: 100,
  outside,
  firstBucket: 0.005,
  perBucket: [
    { le: 0.005, calls: 100 - outside },
    { le: 0.025, calls: outside },
  ],
  seconds: 1,
});

/** Two rounds; the Deployment's calls over 5 ms per round for topogate and the no-op. */
function report(topogate: readonly [number, number], noop: readonly [number, number]): ApiServerReport {
  const runs: Run[] = [0, 1].flatMap((round) => [
    {
      side: 'topogate' as const,
      round,
      bursts: [burst('100 new Pods', 50), burst('a Deployment of 100 replicas', topogate[round]!)],
    },
    {
      side: 'no-op' as const,
      round,
      bursts: [burst('100 new Pods', 60), burst('a Deployment of 100 replicas', noop[round]!)],
    },
  ]);
  return { at: '2026-12-05T18:00:00Z', budgetMs: 5, nodes: 9, histogram: 'h', runs, load: [1, 1, 1] };
}

test('the target: the replicas’ calls over 5 ms at most the no-op’s plus 5 of 200', () => {
  const met = apiServerVerdict(report([12, 10], [10, 7]))!;
  assert.equal(met.met, true, '22 ≤ 17 + 5');
  assert.equal(met.measured, '22 of 200 (the no-op: 17 of 200)');
  assert.match(met.target, /a Deployment of 100 replicas: calls over 5 ms ≤ the no-op's \+ 5 of 200/);
  assert.equal(apiServerVerdict(report([19, 16], [15, 7]))!.met, false, '35 > 22 + 5');
  assert.equal(apiServerVerdict({ ...report([0, 0], [0, 0]), runs: [] }), undefined, 'no burst ran');
});

test('the section: both webhooks’ totals, and a row per burst', () => {
  const section = renderApiServerSection(report([12, 10], [10, 7]));
  assert.ok(section.startsWith(API_SERVER_HEADING));
  assert.match(section, /\| a Deployment of 100 replicas \| \*\*22 of 200\*\* \| 17 of 200 \|/);
  assert.equal(section.split('\n').filter((line) => / \| (topogate|no-op) \| 100 \| /.test(line)).length, 8);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overloadRatio, overloadVerdicts } from '../../../bench/overload-report.ts';
import type { OverloadCell, OverloadReport, SteadyRun } from '../../../bench/overload.ts';

const run = (answeredPerSecond: number): SteadyRun => ({
  answeredPerSecond,
  requests: answeredPerSecond * 3,
  requestsPerSecond: answeredPerSecond,
  errors: 0,
  refused: 0,
  p50Ms: 1,
  p99Ms: 2,
});

const outcomes = { patched: 0, allowed: 0, deferred: 0, skipped: 0, late: 0, answers: 0 };

function report(at16: number[], at256: number[]): OverloadReport {
  const cell = (connections: number, neighbours: boolean, rates: number[]): OverloadCell => ({
    connections,
    neighbours,
    topogate: rates.map(run),
    noop: rates.map((rate) => run(rate / 2)),
    outcomes,
  });
  return {
    budgetMs: 5,
    seconds: 3,
    rounds: at16.length,
    neighbours: 2,
    cells: [false, true].flatMap((neighbours) => [cell(16, neighbours, at16), cell(256, neighbours, at256)]),
  };
}

test("the overload ratio pairs each round's loads: an order effect that slows a round's second run cancels", () => {
  // Rounds alternate 16 first, 256 first; each round's second run is 20 % slower than the server is.
  const at16 = [10_000, 8_000, 10_000, 8_000];
  const at256 = [8_000, 10_000, 8_000, 10_000];
  assert.equal(overloadRatio(report(at16, at256), false, 'topogate').toFixed(6), '1.000000');
  // Medians of each load over these rounds would have read 1.0 too; with 256 second in two of three, 0.8.
  assert.equal(overloadRatio(report(at16.slice(0, 3), at256.slice(0, 3)), false, 'topogate').toFixed(3), '0.928');
  const verdict = overloadVerdicts(report([10_000, 10_000], [8_000, 9_000]))[0]!;
  assert.equal(verdict.measured, `${Math.sqrt(0.8 * 0.9).toFixed(2)} (the no-op: ${Math.sqrt(0.8 * 0.9).toFixed(2)})`);
  assert.equal(verdict.met, false);
});

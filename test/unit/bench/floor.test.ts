import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interruptions, kindMedian, retune, spin, timeWithFloor, tuneFloor } from '../../../bench/floor.ts';

test('spin does the same work for the same count and other work for another', () => {
  assert.equal(spin(1_000), spin(1_000));
  assert.notEqual(spin(1_000), spin(1_001));
});

test('tuneFloor matches spin() to each kind of work, and retune says whether it still does', () => {
  const work = (i: number) => spin(i % 2 === 0 ? 2_000 : 40_000);
  const iterations = tuneFloor(2, work);
  const timed = timeWithFloor(2_000, work, iterations);
  for (const kind of [0, 1]) {
    const ratio = kindMedian(timed.floor, 2, kind) / kindMedian(timed.work, 2, kind);
    assert.ok(ratio > 0.5 && ratio < 2, `kind ${kind}: the floor takes ${ratio.toFixed(2)}× the work`);
  }
  const tenfold = Int32Array.from(iterations, (count) => count * 10);
  assert.equal(retune(tenfold, timeWithFloor(200, work, tenfold)), false);
  assert.ok(tenfold[1]! < 5 * iterations[1]!, `retuned to ${tenfold[1]} from ${iterations[1]! * 10}`);
});

test('interruptions reports rates and a share of the time within bounds', () => {
  const seen = interruptions(50);
  assert.ok(seen.perSecond >= 0 && Number.isFinite(seen.perSecond));
  assert.ok(seen.lostShare >= 0 && seen.lostShare <= 1, `lost ${seen.lostShare}`);
  assert.ok(seen.perSecond === 0 ? Number.isNaN(seen.medianGapUs) : seen.medianGapUs > 5);
});

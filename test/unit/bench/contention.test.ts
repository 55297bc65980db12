import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watchContention } from '../../../bench/contention.ts';

test('watchContention counts the GC pauses of its window and a CPU wait share within 0..1', async () => {
  const stop = watchContention();
  let kept: unknown[] = [];
  for (let i = 0; i < 200_000; i++) {
    kept.push({ i, text: `object ${i}` });
    if (kept.length > 1000) kept = [];
  }
  const contention = await stop();
  assert.ok(contention.gcPauses > 0, 'allocating 200,000 objects makes the young generation collect');
  assert.ok(contention.gcMs > 0);
  if (contention.waitedShare !== undefined)
    assert.ok(contention.waitedShare >= 0 && contention.waitedShare <= 1, String(contention.waitedShare));
});

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { watchContention } from '../../../bench/contention.ts';

/** Linux tells how long a thread waited for a CPU; elsewhere the share is left out, and this test with it. */
const schedstat = existsSync('/proc/self/schedstat');

test(
  'watchContention counts the GC pauses of its window and a CPU wait share within 0..1',
  { skip: schedstat ? false : 'no /proc/self/schedstat' },
  async () => {
    const stop = watchContention();
    let kept: unknown[] = [];
    for (let i = 0; i < 200_000; i++) {
      kept.push({ i, text: `object ${i}` });
      if (kept.length > 1000) kept = [];
    }
    const contention = await stop();
    assert.ok(contention.gcPauses > 0, 'allocating 200,000 objects makes the young generation collect');
    assert.ok(contention.gcMs > 0);
    assert.equal(typeof contention.waitedShare, 'number');
    assert.ok(contention.waitedShare! >= 0 && contention.waitedShare! <= 1, String(contention.waitedShare));
  },
);

test('watchContention tells full collections apart: objects that outlive the young generation bring them', async () => {
  const stop = watchContention();
  const kept: unknown[] = [];
  for (let i = 0; i < 600_000; i++) kept.push({ i, text: `object ${i}` });
  const contention = await stop();
  assert.ok(kept.length > 0);
  assert.ok(contention.majorGcs > 0, 'some 60 MB kept outgrows the old generation of a fresh process');
  assert.ok(contention.majorGcs < contention.gcPauses, 'the young generation collected too');
});

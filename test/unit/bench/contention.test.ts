// watchContention over collections the test forces (V8's gc(), exposed at run time), not over allocations
// hoped to trigger one: how soon V8 collects depends on the heap it has and on the machine's load.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { watchContention } from '../../../bench/contention.ts';

setFlagsFromString('--expose-gc');
/** A scavenge of the young generation (minor) or a full mark-compact (major), now. */
const collect = runInNewContext('gc') as (options: { type: 'minor' | 'major' }) => void;

/** Linux tells how long a thread waited for a CPU; elsewhere the share is left out, and this test with it. */
const schedstat = existsSync('/proc/self/schedstat');

test(
  'watchContention counts the GC pauses of its window and a CPU wait share within 0..1',
  { skip: schedstat ? false : 'no /proc/self/schedstat' },
  async () => {
    const stop = watchContention();
    collect({ type: 'minor' });
    const contention = await stop();
    assert.ok(contention.gcPauses >= 1, 'the scavenge forced in the window is counted');
    assert.ok(contention.gcMs > 0);
    assert.equal(typeof contention.waitedShare, 'number');
    assert.ok(contention.waitedShare! >= 0 && contention.waitedShare! <= 1, String(contention.waitedShare));
  },
);

test('watchContention leaves out the pauses before its window', async () => {
  collect({ type: 'major' });
  const stop = watchContention();
  const contention = await stop();
  assert.equal(contention.majorGcs, 0, 'the full collection before the window is not counted');
});

test('watchContention tells full collections apart from scavenges', async () => {
  const stop = watchContention();
  collect({ type: 'minor' });
  collect({ type: 'major' });
  const contention = await stop();
  assert.ok(contention.majorGcs >= 1, 'the forced full collection');
  assert.ok(contention.majorGcs < contention.gcPauses, 'the forced scavenge is counted, and not as full');
});

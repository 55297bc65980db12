// After start-up, serve collects the parse's garbage and gives glibc's free pages back (malloc_trim):
// at 10,000 nodes the trim alone is ~7-14 MB of RSS (bench/serve-memory.ts measures it; docs/benchmarks.md).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { releaseStartUpGarbage } from '../../../../src/cli/serve/startup-gc.ts';

const unreachable = () => new WeakRef({ parsed: Array.from({ length: 1_000 }, (_, i) => `item ${i}`) });

test('start-up garbage is collected and glibc is trimmed on this platform (Linux, glibc, node:ffi)', async () => {
  const garbage = unreachable();
  // A WeakRef keeps its target for the rest of the job that made it.
  await nextTurn();
  assert.equal(releaseStartUpGarbage(), true, 'malloc_trim was reached through node:ffi');
  assert.equal(garbage.deref(), undefined, 'the full GC ran');
});

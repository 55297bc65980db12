// After start-up, serve collects the parse's garbage and gives glibc's free pages back (malloc_trim):
// at 10,000 nodes the trim alone is ~7-14 MB of RSS (bench/serve-memory.ts measures it; docs/benchmarks.md).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { releaseStartUpGarbage, releaseWhenFirstReady } from '../../../../src/cli/serve/startup-gc.ts';
import type { TopologyProvider } from '../../../../src/ports/topology.ts';

const unreachable = () => new WeakRef({ parsed: Array.from({ length: 1_000 }, (_, i) => `item ${i}`) });

test('start-up garbage is collected and glibc is trimmed on this platform (Linux, glibc, node:ffi)', async () => {
  const garbage = unreachable();
  // A WeakRef keeps its target for the rest of the job that made it.
  await nextTurn();
  assert.equal(releaseStartUpGarbage(), true, 'malloc_trim was reached through node:ffi');
  assert.equal(garbage.deref(), undefined, 'the full GC ran');
});

test("a live topology's lists are collected once, when it is first ready", async () => {
  let ready = false;
  const listeners = new Set<() => void>();
  const topology = {
    readiness: () => ({ ready }),
    subscribe: (listener: () => void) => (listeners.add(listener), () => void listeners.delete(listener)),
  } as unknown as TopologyProvider;
  releaseWhenFirstReady(topology);
  const publish = () => [...listeners].forEach((listener) => listener());

  const listed = unreachable();
  await nextTurn();
  publish();
  assert.notEqual(listed.deref(), undefined, 'nothing is collected while the lists go on');
  assert.equal(listeners.size, 1);
  // deref() keeps its target for the rest of this job.
  await nextTurn();
  ready = true;
  publish();
  assert.equal(listed.deref(), undefined, 'collected once ready');
  assert.equal(listeners.size, 0, 'and only once');
});

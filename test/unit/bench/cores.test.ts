import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onCore } from '../../../bench/cores.ts';

test('onCore runs a load tool through taskset on the core given', () => {
  assert.deepEqual(onCore(1, 'wrk', ['-t1', '-c25']), ['taskset', ['-c', '1', 'wrk', '-t1', '-c25']]);
});

test('onCore leaves the command as it is without a core', () => {
  assert.deepEqual(onCore(undefined, 'h2load', ['--h1']), ['h2load', ['--h1']]);
});

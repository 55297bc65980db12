// After start-up, serve collects the parse's garbage and gives glibc's free pages back (malloc_trim):
// at 10,000 nodes the trim alone is ~7-14 MB of RSS (bench/serve-memory.ts measures it; docs/benchmarks.md).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createServer } from 'node:http';
import { pino } from 'pino';
import {
  releaseStartUpGarbage,
  releaseWhenFirstReady,
  trimAfterListWorkers,
} from '../../../../src/cli/serve/startup-gc.ts';
import type { TopologyProvider } from '../../../../src/ports/topology.ts';
import { listOffThread } from '../../../../src/sources/topology/off-thread.ts';
import { loopbackKubeConfig } from '../../sources/loopback-kubeconfig.ts';

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

test('each time the list worker ends, glibc is trimmed and the trim logged', async () => {
  const server = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const lines: { msg: string; stallMs: number; rssAfter: number }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const stop = trimAfterListWorkers(log);
  try {
    const nodes = { source: 'nodes', apiVersion: 'v1', kind: 'Node', path: '/api/v1/nodes', selectors: {} };
    await listOffThread(loopbackKubeConfig(server), nodes);
    const deadline = Date.now() + 10_000;
    while (lines.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['list worker ended: memory trimmed'],
    );
    assert.ok(lines[0]!.stallMs >= 0 && lines[0]!.rssAfter > 0);
  } finally {
    stop();
    server.close();
  }
});

// The bound Pods' table: a workload's node counts, small or past the size at
// which they move to buckets of their own, read the same from every frozen
// occupancy, and a frozen occupancy never sees a later bind.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PodUsageTable } from '../../../src/topology/usage.ts';

const usage = (node: string, workload = 'apps/Deployment/ml/trainer') => ({ node, workload, requests: { cpu: 1000 } });

/** The workload's node counts as a plain object, in name order. */
function counts(nodes: ReadonlyMap<string, number> | undefined): Record<string, number> {
  return Object.fromEntries([...(nodes ?? [])].sort(([a], [b]) => (a < b ? -1 : 1)));
}

test('a workload on hundreds of nodes: each frozen occupancy keeps the counts of its own version', () => {
  const table = new PodUsageTable();
  const expected: Record<string, number> = {};
  const frozen: { occupancy: ReturnType<PodUsageTable['freeze']>; counts: Record<string, number> }[] = [];
  for (let i = 0; i < 300; i++) {
    const node = `n${i % 200}`;
    table.set(`ml/trainer-${i}`, usage(node));
    expected[node] = (expected[node] ?? 0) + 1;
    if (i % 37 === 0) frozen.push({ occupancy: table.freeze(), counts: counts(new Map(Object.entries(expected))) });
  }
  const last = table.freeze();
  assert.deepEqual(counts(last.workloadNodes('apps/Deployment/ml/trainer')), counts(new Map(Object.entries(expected))));
  for (const { occupancy, counts: then } of frozen)
    assert.deepEqual(
      counts(occupancy.workloadNodes('apps/Deployment/ml/trainer')),
      then,
      `version ${occupancy.version}`,
    );
  for (let i = 0; i < 300; i++) table.set(`ml/trainer-${i}`, undefined);
  assert.equal(table.freeze().workloadNodes('apps/Deployment/ml/trainer'), undefined, 'every Pod gone: no entry');
  assert.equal(Object.keys(counts(last.workloadNodes('apps/Deployment/ml/trainer'))).length, 200);
});

test('any sequence of binds and deletes gives the counts a fresh table of the survivors gives', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 150 }), fc.boolean()), {
        maxLength: 600,
      }),
      (steps) => {
        const table = new PodUsageTable();
        const live = new Map<string, string>();
        for (const [pod, node, bind] of steps) {
          const key = `p${pod}`;
          table.set(key, bind ? usage(`n${node}`) : undefined);
          if (bind) live.set(key, `n${node}`);
          else live.delete(key);
          if (pod % 5 === 0) table.freeze();
        }
        const fresh = new PodUsageTable();
        for (const [key, node] of live) fresh.set(key, usage(node));
        const workload = 'apps/Deployment/ml/trainer';
        assert.deepEqual(
          counts(table.freeze().workloadNodes(workload)),
          counts(fresh.freeze().workloadNodes(workload)),
        );
      },
    ),
    { numRuns: 200 },
  );
});

test("Pods of a workload share an alike Pod's requests only where theirs are the same: every sum stays its own", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 3 })),
        { maxLength: 300 },
      ),
      (steps) => {
        const table = new PodUsageTable();
        const live = new Map<string, { node: string; cpu: number }>();
        for (const [pod, node, size] of steps) {
          const key = `p${pod}`;
          // size 0 deletes; the others request 1, 2 or 3 CPUs, so alike and unlike Pods of one workload mix.
          const bound = size === 0 ? undefined : { node: `n${node}`, cpu: size * 1000 };
          table.set(
            key,
            bound && { node: bound.node, workload: 'apps/Deployment/ml/trainer', requests: { cpu: bound.cpu } },
          );
          if (bound) live.set(key, bound);
          else live.delete(key);
        }
        const occupancy = table.freeze();
        for (let node = 0; node <= 5; node++) {
          const cpu = [...live.values()]
            .filter((pod) => pod.node === `n${node}`)
            .reduce((sum, pod) => sum + pod.cpu, 0);
          assert.deepEqual(occupancy.requested(`n${node}`), cpu > 0 ? { cpu } : undefined, `n${node}`);
        }
      },
    ),
    { numRuns: 200 },
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { PolicyTallies } from '../../../src/server/tally.ts';

function counted(): { tallies: PolicyTallies; registry: Registry } {
  const registry = new Registry();
  const made: { tallies?: PolicyTallies } = {};
  const counter = new Counter({
    name: 'policies_total',
    help: 'test',
    labelNames: ['policy', 'enforcement'],
    registers: [registry],
    collect: () => made.tallies?.flush(),
  });
  made.tallies = new PolicyTallies(counter);
  return { tallies: made.tallies, registry };
}

async function values(registry: Registry): Promise<Record<string, number>> {
  const [metric] = await registry.getMetricsAsJSON();
  return Object.fromEntries(
    (metric?.values ?? []).map(({ labels, value }) => [`${labels.policy}/${labels.enforcement}`, value]),
  );
}

test('counts kept as plain numbers reach the counter when it is read, each once', async () => {
  const { tallies, registry } = counted();
  tallies.of('gpu', 'Enforce').count++;
  tallies.of('gpu', 'Enforce').count++;
  tallies.of('gpu', 'Audit').count++;
  tallies.of('web', 'Enforce').count++;
  assert.deepEqual(await values(registry), { 'gpu/Enforce': 2, 'gpu/Audit': 1, 'web/Enforce': 1 });
  assert.deepEqual(await values(registry), { 'gpu/Enforce': 2, 'gpu/Audit': 1, 'web/Enforce': 1 }, 'read twice');
  tallies.of('web', 'Enforce').count++;
  assert.deepEqual(await values(registry), { 'gpu/Enforce': 2, 'gpu/Audit': 1, 'web/Enforce': 2 });
});

test('one tally per series, the same object each time', () => {
  const { tallies } = counted();
  assert.equal(tallies.of('gpu', 'Enforce'), tallies.of('gpu', 'Enforce'));
  assert.notEqual(tallies.of('gpu', 'Enforce'), tallies.of('gpu', 'Audit'));
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';

const topology = (spec: unknown, status?: unknown): KubeObject => ({
  apiVersion: 'topogate.dev/v1alpha1',
  kind: 'NetworkTopology',
  metadata: { name: 'default' },
  spec,
  ...(status === undefined ? {} : { status }),
});

const model = (spec: unknown, status?: unknown) => {
  const network = buildSnapshot([topology(spec, status)], { now: 0 }).network;
  assert.ok(network);
  return network;
};

describe('NetworkTopology: measured status over declared spec', () => {
  const network = model(
    {
      links: [
        { from: 'a', to: 'b', rttMs: 5, bandwidthGbps: 25 },
        { from: 'a', to: 'c', rttMs: 1.4, bandwidthGbps: 10 },
        { from: 'c', to: 'd', rttMs: 7, symmetric: false },
      ],
    },
    {
      observedAt: '2026-12-03T10:00:00Z',
      links: [
        { from: 'b', to: 'a', rttMs: 0.9, rttP99Ms: 1.8, samples: 412 },
        { from: 'a', to: 'a', rttMs: 0.2, rttP99Ms: 0.4, samples: 90 },
        { from: 'a', to: 'c', rttMs: 3, samples: 12, bandwidthGbps: 40 },
        { from: 'a', to: 'x', rttMs: 'slow' },
        { from: 'a', to: 'y', rttMs: -1 },
      ],
      degradedNodes: [
        { name: 'node-17', rttMs: 4.1, zoneRttMs: 0.2 },
        { name: 'node-18', rttMs: 'high', zoneRttMs: 0.2 },
      ],
    },
  );

  it('reads the measured median in both directions, whatever the declared figure', () => {
    assert.equal(network.rttMs('a', 'b'), 0.9);
    assert.equal(network.rttMs('b', 'a'), 0.9);
    assert.equal(network.measured('a', 'b'), true);
  });

  it('falls back to the declared link where nothing is measured, its direction kept', () => {
    assert.equal(network.rttMs('c', 'd'), 7);
    assert.equal(network.rttMs('d', 'c'), undefined);
    assert.equal(network.measured('c', 'd'), false);
  });

  it('answers p99 from rttP99Ms, else the measured median, else the declaration', () => {
    assert.equal(network.rttMs('a', 'b', 'p99'), 1.8);
    assert.equal(network.rttMs('a', 'c', 'p99'), 3);
    assert.equal(network.rttMs('c', 'd', 'p99'), 7);
    assert.deepEqual(network.nearest('a', 'p99'), [
      { domain: 'a', rttMs: 0 },
      { domain: 'b', rttMs: 1.8 },
      { domain: 'c', rttMs: 3 },
    ]);
    assert.deepEqual(network.within('a', 1), new Set(['a', 'b']));
    assert.deepEqual(network.within('a', 1, 'p99'), new Set(['a']));
  });

  it("keeps a domain's own RTT apart: rttMs to itself stays 0", () => {
    assert.equal(network.rttMs('a', 'a'), 0);
    assert.equal(network.zoneRttMs('a'), 0.2);
    assert.equal(network.zoneRttMs('a', 'p99'), 0.4);
    assert.equal(network.zoneRttMs('b'), undefined);
  });

  it('reads bandwidth measured when measured, else declared', () => {
    assert.equal(network.bandwidthGbps('c', 'a'), 40);
    assert.equal(network.bandwidthGbps('b', 'a'), 25);
    assert.equal(network.bandwidthGbps('c', 'd'), undefined);
  });

  it('leaves out malformed measured links and degraded nodes', () => {
    assert.equal(network.rttMs('a', 'x'), undefined);
    assert.equal(network.rttMs('a', 'y'), undefined);
    assert.deepEqual([...network.degradedNodes.values()], [{ name: 'node-17', rttMs: 4.1, zoneRttMs: 0.2 }]);
  });

  it('builds from a status alone, as `topogate probe` creates the object', () => {
    const measuredOnly = model(
      { domainLabel: 'topology.kubernetes.io/zone', links: [] },
      { links: [{ from: 'z1', to: 'z2', rttMs: 2, rttP99Ms: 3, samples: 40 }] },
    );
    assert.deepEqual(measuredOnly.within('z1', 2), new Set(['z1', 'z2']));
    assert.equal(measuredOnly.degradedNodes.size, 0);
  });
});

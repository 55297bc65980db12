import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { ciliumSummaries } from '../../../../src/probe/adapters/cilium.ts';
import { quantileOf } from '../../../../src/probe/histogram.ts';

const fixture = (name: string) =>
  readFile(new URL(`../../../../../shared/fixtures/real-world/probes/${name}`, import.meta.url), 'utf8');

describe('Cilium node connectivity adapter, on Cilium’s own expected exposition', () => {
  it('turns the per-target icmp latency of node addresses into a summary of the source node', async () => {
    const text = await fixture('cilium.server_test.node_connectivity-DEPRECATED-per-target.clustermesh.expected.prom');
    const zones: Record<string, string> = { 'kind-cilium-mesh-1-worker': 'z1', 'kind-cilium-mesh-2-worker': 'z2' };
    const summaries = ciliumSummaries(text, (node) => zones[node]);
    assert.equal(summaries.length, 1);
    const [summary] = summaries;
    assert.equal(summary!.node, 'kind-cilium-mesh-1-worker');
    assert.equal(summary!.zone, 'z1');
    // The local_node series (source == target) is left out; the remote one is icmp/node/primary 0.000635688 s.
    assert.deepEqual(
      summary!.zones.map((z) => z.zone),
      ['z2'],
    );
    const ms = quantileOf(summary!.zones[0]!.buckets, 0.5)!;
    assert.ok(Math.abs(ms - 0.635688) / 0.635688 < 0.02, String(ms));
  });

  it('reads http endpoints when asked, and leaves out targets in no known zone', async () => {
    const text = await fixture('cilium.server_test.node_connectivity-DEPRECATED-per-target.clustermesh.expected.prom');
    const http = ciliumSummaries(text, (node) => (node.endsWith('worker') ? 'z' : undefined), {
      protocol: 'http',
      type: 'endpoint',
    });
    const ms = quantileOf(http[0]!.zones[0]!.buckets, 0.5)!;
    assert.ok(Math.abs(ms - 0.274815) / 0.274815 < 0.02, String(ms));
    assert.deepEqual(
      ciliumSummaries(text, (node) => (node === 'kind-cilium-mesh-1-worker' ? 'z1' : undefined)),
      [],
    );
  });
});

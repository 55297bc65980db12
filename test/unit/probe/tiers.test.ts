// The writer's derived levels in NetworkTopology status: written from its node pairs once there are
// enough, with the node whose zone label lies named in `mislabeled`, and accepted by the CRD's schema.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { parse } from 'yaml';
import type { NetworkStatus } from '../../../src/probe/aggregate.ts';
import { bucketOf } from '../../../src/probe/histogram.ts';
import { createProbeMetrics } from '../../../src/probe/shell/metrics.ts';
import type { StatusWriter } from '../../../src/probe/shell/status-writer.ts';
import { Writer } from '../../../src/probe/shell/writer.ts';
import type { AgentSummary } from '../../../src/probe/summary.ts';
import { type DerivedStatus, MAX_LISTED_NODES, derivedStatus } from '../../../src/probe/tiers.ts';
import { createNetworkModel } from '../../../src/topology/network.ts';
import { readNetworkTopology } from '../../../src/topology/read/network-topology.ts';

/** Two zones of five nodes: 0.1 ms inside a zone, 1 ms across; every agent reports every other node. */
const nodes = ['a', 'b'].flatMap((zone) => Array.from({ length: 5 }, (_, i) => ({ name: `${zone}${i}`, zone })));
const rtt = (x: string, y: string) => (x[0] === y[0] ? 0.1 : 1) * (1 + (x.charCodeAt(1) + y.charCodeAt(1)) / 1000);
const summaries: AgentSummary[] = nodes.map(({ name, zone }) => ({
  node: name,
  zone: `zone-${zone}`,
  zones: [{ zone: `zone-${zone}`, buckets: new Map([[bucketOf(0.1), 10]]) }],
  peers: nodes.filter((peer) => peer.name !== name).map((peer) => ({ node: peer.name, rttMs: rtt(name, peer.name) })),
}));
/** b4's label says zone-a, though it measures into zone-b. */
const labels = new Map(nodes.map(({ name, zone }) => [name, name === 'b4' ? 'zone-a' : `zone-${zone}`]));

async function writeOnce(from: readonly AgentSummary[]): Promise<DerivedStatus | undefined> {
  const written: (DerivedStatus | undefined)[] = [];
  const status = {
    write: async (_next: NetworkStatus, _at: Date, derived?: DerivedStatus) => void written.push(derived),
  } as unknown as StatusWriter;
  const writer = new Writer({
    policy: { minPeriodMs: 60_000, refreshMs: 60_000 },
    gatherTimeoutMs: 1_000,
    own: () => undefined,
    peers: () => [],
    extra: async () => from,
    zones: () => labels,
    status,
    metrics: createProbeMetrics(new Registry()),
    log: pino({ level: 'silent' }),
  });
  writer.lead();
  for (let waited = 0; written.length === 0 && waited < 30_000; waited += 20) await sleep(20);
  writer.follow();
  assert.equal(written.length, 1);
  return written[0];
}

describe('the writer derives levels from its node pairs into status', () => {
  it('writes the zones as a tier, every node in its group, and the mislabeled node', async () => {
    const derived = (await writeOnce(summaries))!;
    const zoneTier = derived.tiers.find((tier) => tier.groups.length === 2)!;
    assert.deepEqual(zoneTier.groups.map((group) => group.nodes).sort(), [
      ['a0', 'a1', 'a2', 'a3', 'a4'],
      ['b0', 'b1', 'b2', 'b3', 'b4'],
    ]);
    assert.ok(zoneTier.thresholdMs > 0.11 && zoneTier.thresholdMs < 0.99, `threshold ${zoneTier.thresholdMs}`);
    assert.equal(zoneTier.nodesOmitted, 0);
    assert.deepEqual(derived.mislabeled, [
      { node: 'b4', label: 'topology.kubernetes.io/zone', value: 'zone-a', measured: 'zone-b' },
    ]);
  });

  it('derives from a cluster of three nodes once its three pairs are measured', () => {
    const three = [
      { a: 'n1', b: 'n2', rttMs: 0.2 },
      { a: 'n1', b: 'n3', rttMs: 20.4 },
      { a: 'n2', b: 'n3', rttMs: 20.9 },
    ];
    const { tiers } = derivedStatus(three, new Map())!;
    assert.deepEqual(tiers[0]?.groups.map((group) => group.nodes).sort(), [['n1', 'n2'], ['n3']]);
    assert.equal(derivedStatus(three.slice(0, 2), new Map()), undefined, 'two pairs of three say nothing');
  });

  it('writes no tiers while the pairs are too few to say', async () => {
    const few = summaries.map((summary) => ({ ...summary, peers: summary.peers!.slice(0, 1) }));
    assert.equal(await writeOnce(few), undefined);
  });

  it('lists at most MAX_LISTED_NODES nodes per level and counts the rest', () => {
    const many = Array.from({ length: MAX_LISTED_NODES + 20 }, (_, i) => `n${String(i).padStart(5, '0')}`);
    const half = many.length / 2;
    const side = (i: number) => (i < half ? 0 : 1);
    const pairs = many.flatMap((a, i) =>
      [1, 2, 3, 4, half].map((step) => {
        const j = (i + step) % many.length;
        return { a, b: many[j]!, rttMs: side(i) === side(j) ? 0.1 : 1 };
      }),
    );
    const { tiers } = derivedStatus(pairs, new Map())!;
    assert.ok(tiers.some((tier) => tier.groups.length === 2));
    for (const tier of tiers) {
      const listed = tier.groups.reduce((sum, group) => sum + group.nodes.length, 0);
      assert.equal(listed, MAX_LISTED_NODES);
      assert.equal(tier.nodesOmitted, 20);
    }
  });
});

type Schema = Record<string, any>;

/** Where `value` breaks the schema: the subset of OpenAPI v3 the NetworkTopology CRD uses. */
function violations(schema: Schema, value: unknown, path: string, out: string[]): string[] {
  const kind = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (schema.type && schema.type !== kind && !(schema.type === 'number' && kind === 'integer'))
    return [...out, `${path}: ${kind}, not ${schema.type}`];
  if (typeof value === 'number' && (value < (schema.minimum ?? -Infinity) || value > (schema.maximum ?? Infinity)))
    out.push(`${path}: ${value} out of range`);
  if (typeof value === 'string' && value.length > (schema.maxLength ?? Infinity)) out.push(`${path}: too long`);
  if (Array.isArray(value)) {
    if (value.length > (schema.maxItems ?? Infinity)) out.push(`${path}: too many items`);
    value.forEach((item, i) => violations(schema.items, item, `${path}[${i}]`, out));
  }
  if (kind === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) out.push(`${path}.${key}: missing`);
    for (const [key, item] of Object.entries(object))
      if (schema.properties?.[key]) violations(schema.properties[key], item, `${path}.${key}`, out);
      else out.push(`${path}.${key}: unknown field (pruned)`);
  }
  return out;
}

describe('the NetworkTopology CRD accepts the derived status', () => {
  const crd = parse(readFileSync(new URL('../../../manifests/crds/networktopologies.yaml', import.meta.url), 'utf8'));
  const statusSchema = crd.spec.versions[0].schema.openAPIV3Schema.properties.status as Schema;

  it('takes tiers and mislabeled as the writer writes them', async () => {
    const derived = (await writeOnce(summaries))!;
    const status = { observedAt: '2026-12-05T10:00:00Z', links: [], degradedNodes: [], ...derived };
    assert.deepEqual(violations(statusSchema, JSON.parse(JSON.stringify(status)), 'status', []), []);
  });

  it('would refuse (or prune) a tier without its groups or with an unknown field', () => {
    const bad = { tiers: [{ level: 0, thresholdMs: 1, confidence: 2, extra: true }] };
    assert.deepEqual(violations(statusSchema, bad, 'status', []), [
      'status.tiers[0].groups: missing',
      'status.tiers[0].confidence: 2 out of range',
      'status.tiers[0].extra: unknown field (pruned)',
    ]);
  });
});

describe('the reader takes status.mislabeled into the network model', () => {
  const finding = { node: 'b4', label: 'topology.kubernetes.io/zone', value: 'zone-a', measured: 'zone-b' };

  it('by node name, leaving out a malformed entry', () => {
    const facts = readNetworkTopology('cluster', {
      spec: { links: [] },
      status: { mislabeled: [finding, { node: 'x', label: 1 }, 'junk'] },
    });
    assert.deepEqual([...createNetworkModel(facts).mislabeled!], [['b4', finding]]);
  });

  it('no further than the CRD bound of 100', () => {
    const many = Array.from({ length: 5_000 }, (_, i) => ({ ...finding, node: `n${i}` }));
    assert.equal(readNetworkTopology('cluster', { spec: {}, status: { mislabeled: many } }).mislabeled!.length, 100);
  });
});

// Fuzzing the rules from measured data and DRA: spoiled Pods decided against
// bandwidth, pack and latency (p99, degraded nodes) policies; spoiled claims
// through the dra rule; spoiled Pods and ResourceSlices fed to the model.
// Nothing throws, every decision is well formed and its patch applies.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, Pod } from '../../../src/kube/types.ts';
import { claimFacts, type ClaimKind } from '../../../src/kube/claimFacts.ts';
import { decideClaim } from '../../../src/policy/claims.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { SchedulingPolicy } from '../../../src/policy/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { basePods, fuzzRuns, fuzzSeed, mutated, prototypeFingerprint } from './corpus.ts';
import { assertValidDecision } from './verify.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

const NOW = Date.parse('2026-12-02T12:00:00Z');
const ZONE = 'topology.kubernetes.io/zone';
const RACK = 'topogate.dev/rack';
const dra = new URL('../../../../shared/fixtures/real-world/dra/', import.meta.url);

const fixtures = (file: string) =>
  parseAllDocuments(readFileSync(new URL(file, dra), 'utf8')).flatMap((d) => {
    const value = d.toJS() as Record<string, any> | null;
    return value?.kind === 'List' ? (value.items as Record<string, any>[]) : value ? [value] : [];
  });
const slices = fixtures('ai-on-gke.nvidia-gpu-dra-driver.H200.ResourceSliceList.v1.excerpt.yaml').map((slice) =>
  JSON.parse(JSON.stringify(slice).replaceAll('<node-name>', 'n1')),
);
const claims = [
  ...fixtures('dra-example-driver.partitionable-devices.count2.v1.multi.yaml'),
  ...fixtures('ai-on-gke.gpu-nic-cpu.matchAttribute-pcieRoot.ResourceClaim.v1.yaml'),
  ...fixtures('nvidia-dra-driver.gpu-test4.mig-4requests-matchAttribute.v1.multi.yaml'),
].filter((object) => String(object.kind).startsWith('ResourceClaim'));

const node = (name: string, zone: string, rack: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, [ZONE]: zone, [RACK]: rack } },
  status: { allocatable: { cpu: '16', memory: '64Gi', pods: '110' } },
});
const cluster = (extra: readonly unknown[]): KubeObject[] => [
  node('n1', 'a', 'r1'),
  node('n2', 'a', 'r2'),
  node('n3', 'b', 'r3'),
  networkTopology({
    links: [{ from: 'a', to: 'b', rttMs: 1, bandwidthGbps: 40 }],
    status: {
      links: [{ from: 'a', to: 'b', rttMs: 0.4, rttP99Ms: 2 }],
      degradedNodes: [{ name: 'n2', rttMs: 3, zoneRttMs: 0.1 }],
    },
  }),
  ...(slices as KubeObject[]),
  ...(extra.filter((value) => typeof value === 'object' && value !== null && !Array.isArray(value)) as KubeObject[]),
];

const policies: SchedulingPolicy[] = [
  {
    name: 'pack',
    priority: 3,
    onUnsatisfiable: 'Warn',
    rules: { pack: { levels: [ZONE, RACK], level: RACK, mode: 'Required' } },
  },
  {
    name: 'near',
    priority: 2,
    onUnsatisfiable: 'Warn',
    rules: {
      latency: { to: { zone: 'a' }, maxRttMs: 1, mode: 'Required', percentile: 'p99', avoidDegradedNodes: true },
      bandwidth: { to: { zone: 'a' }, minGbps: 10, mode: 'Preferred' },
    },
  },
  {
    name: 'gpu',
    priority: 1,
    onUnsatisfiable: 'Reject',
    rules: { gpu: { products: ['NVIDIA-*'], resource: 'nvidia.com/gpu', mode: 'Required', weight: 100 } },
  },
  { name: 'align', priority: 0, onUnsatisfiable: 'Warn', rules: { dra: { alignBy: 'numaNode' } } },
];

const spoiled = mutated(basePods).filter(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
);

test('spoiled Pods, bound in the model and decided against pack, bandwidth and latency: well-formed decisions', () => {
  const fingerprint = prototypeFingerprint();
  fc.assert(
    fc.property(fc.array(spoiled, { maxLength: 4 }), spoiled, (bound, pod) => {
      const placed = bound.map((other, index) => ({
        ...(other as object),
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { ...((other as Pod).metadata ?? {}), name: `b${index}`, namespace: 'x' },
        spec: { ...((other as Pod).spec ?? {}), nodeName: `n${(index % 3) + 1}` },
      }));
      const compiled = compile(policies, buildSnapshot(cluster(placed), { now: NOW }));
      const before = JSON.stringify(pod);
      const decision = decide(podRequest(pod as Pod, 'default'), compiled, {
        now: NOW,
        maxSourceAgeMs: 60_000,
      });
      assertValidDecision(decision, pod);
      assert.equal(JSON.stringify(pod), before);
      assert.equal(prototypeFingerprint(), fingerprint);
    }),
    { numRuns: fuzzRuns(120), seed: fuzzSeed() + 7 },
  );
});

test('spoiled claims and templates through the dra rule: never throws, the patch applies, the claim is untouched', () => {
  const compiled = compile(policies, buildSnapshot(cluster([]), { now: NOW }));
  fc.assert(
    fc.property(
      mutated(claims),
      fc.constantFrom<ClaimKind>('ResourceClaim', 'ResourceClaimTemplate'),
      (claim, kind) => {
        const before = JSON.stringify(claim);
        const decision = decideClaim(claimFacts(claim, kind, 'default'), compiled);
        assertValidDecision(decision, claim);
        assert.equal(JSON.stringify(claim), before);
      },
    ),
    { numRuns: fuzzRuns(200), seed: fuzzSeed() + 8 },
  );
});

test('spoiled ResourceSlices never break the model', () => {
  fc.assert(
    fc.property(fc.array(mutated(slices), { maxLength: 3 }), (spoiledSlices) => {
      const snapshot = buildSnapshot(
        cluster(
          spoiledSlices.map((slice, index) => ({
            ...(slice as object),
            kind: 'ResourceSlice',
            apiVersion: 'resource.k8s.io/v1',
            metadata: { name: `s${index}` },
          })),
        ),
        { now: NOW },
      );
      for (const devices of snapshot.devices.values())
        assert.ok(devices.every((device) => typeof device.name === 'string'));
    }),
    { numRuns: fuzzRuns(150), seed: fuzzSeed() + 9 },
  );
});

// What a decision writes is kept by a key of what it is written from: the key
// must tell apart any two inputs whose writes differ, and the decisions that
// share writes must each still read as a fresh set decides them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { podFacts, podRequest } from '../../../src/kube/podFacts.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { isKept } from '../../../src/memo/kept.ts';
import { patchedPod, type Added } from '../../../src/policy/merge.ts';
import { sameWritesKey, writes, writesKey, writesKeyHash, type Additions } from '../../../src/policy/writes.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { clusterObjects, NOW, OPTIONS, pod, policy } from './engine-cluster.ts';

const ZONE = 'topology.kubernetes.io/zone';
const RULES = { nodeLabels: { required: [{ key: ZONE, operator: 'Exists' as const }], preferred: [] } };
const zones = policy('zones', RULES);
const zonesAgain = policy('zones', RULES);
const requirement = { key: ZONE, operator: 'In' as const, values: ['zone-a'] };
const preferred = { weight: 5, preference: { matchExpressions: [requirement] } };
const spread = { topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' as const };
const hint = { n1: '0' };
const ADDED: Added = {
  requirements: [requirement],
  preferred: [preferred],
  spreads: [spread],
  schedulerName: undefined,
  numaHint: undefined,
};
const facts = podFacts(pod(), 'default');
const BASE: Additions = {
  applied: [{ policy: zones, rules: { 'nodeLabels.required': 'added' } }],
  added: ADDED,
  pod: patchedPod(facts),
};
const terms = podFacts(
  pod({
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }],
        },
      },
    },
  }),
  'default',
);

/** BASE with one input changed each: every one of them changes what is written. */
const VARIANTS: Record<string, Additions> = {
  'a shape field': { ...BASE, pod: { ...BASE.pod, shape: { ...facts.shape, annotations: true } } },
  'the required terms': { ...BASE, pod: patchedPod(terms) },
  'another policy of the same text': { ...BASE, applied: [{ ...BASE.applied[0]!, policy: policy('other', RULES) }] },
  "a rule's result": { ...BASE, applied: [{ policy: zones, rules: { 'nodeLabels.required': 'unchanged' } }] },
  'a second policy': { ...BASE, applied: [...BASE.applied, { policy: policy('more', RULES), rules: {} }] },
  'a requirement': { ...BASE, added: { ...ADDED, requirements: [{ ...requirement, values: ['zone-b'] }] } },
  'a preferred term': { ...BASE, added: { ...ADDED, preferred: [{ ...preferred, weight: 6 }] } },
  'a spread': { ...BASE, added: { ...ADDED, spreads: [{ ...spread, maxSkew: 2 }] } },
  'the NUMA hint': { ...BASE, added: { ...ADDED, numaHint: hint } },
  'the scheduler name': { ...BASE, added: { ...ADDED, schedulerName: 'topo' } },
};

describe('writesKey', () => {
  test('differs whenever one input of the writes does', () => {
    const base = writes('s-1', BASE);
    for (const [change, variant] of Object.entries(VARIANTS)) {
      assert.notDeepEqual(writes('s-1', variant), base, `${change} changes the writes`);
      assert.equal(sameWritesKey(writesKey(variant), writesKey(BASE)), false, change);
      assert.notEqual(writesKeyHash(writesKey(variant)), writesKeyHash(writesKey(BASE)), change);
    }
    const distinct = new Set(Object.values(VARIANTS).map((variant) => JSON.stringify(writesKey(variant))));
    assert.equal(distinct.size, Object.keys(VARIANTS).length);
  });

  test('is the same for the same outputs and policies in new lists, and they are written the same', () => {
    const again: Additions = {
      applied: [{ policy: zones, rules: { 'nodeLabels.required': 'added' } }],
      added: { ...ADDED, requirements: [...ADDED.requirements], spreads: [...ADDED.spreads] },
      pod: { shape: { ...facts.shape }, requiredTerms: facts.placement.requiredTerms },
    };
    assert.equal(sameWritesKey(writesKey(again), writesKey(BASE)), true);
    assert.equal(writesKeyHash(writesKey(again)), writesKeyHash(writesKey(BASE)));
    assert.deepEqual(writes('s-1', again), writes('s-1', BASE));
  });

  test('names a policy by identity, not by its text: an equal policy object is another key', () => {
    const twin: Additions = { ...BASE, applied: [{ ...BASE.applied[0]!, policy: zonesAgain }] };
    assert.deepEqual(writes('s-1', twin), writes('s-1', BASE));
    assert.equal(sameWritesKey(writesKey(twin), writesKey(BASE)), false);
  });
});

describe('the writes memo', () => {
  const spreadAll = policy('spread-all', {
    spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }],
  });
  const audit = policy('audit-db', RULES, {
    enforcement: 'Audit',
    match: { podSelector: { matchLabels: { tier: 'db' } } },
  });
  const POLICIES = [spreadAll, audit];
  const newPod = (sequence: number, labels: Record<string, string> = {}) =>
    podRequest(
      pod({}, { name: `p-${sequence}`, labels: { app: 'web', sequence: String(sequence), ...labels } }),
      'default',
    );

  test('new Pods of one shape share the writes from their second sight, each as a fresh set decides it', () => {
    const shared = compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW }));
    const fresh = (sequence: number) =>
      decide(newPod(sequence), compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW })), OPTIONS);
    const decisions = [0, 1, 2, 3].map((sequence) => decide(newPod(sequence), shared, OPTIONS));
    decisions.forEach((decision, sequence) => assert.deepEqual(decision, fresh(sequence)));
    assert.ok(decisions[0]!.patch.length > 0);
    assert.equal(isKept(decisions[0]!.patch), false, 'not kept on its first sight');
    assert.notEqual(decisions[1]!.patch, decisions[0]!.patch);
    assert.equal(decisions[2]!.patch, decisions[1]!.patch);
    assert.equal(decisions[3]!.patch, decisions[1]!.patch);
    assert.equal(isKept(decisions[1]!.patch), true);
  });

  test("an Audit policy's note goes on the decision it matched, never on the writes others share", () => {
    const shared = compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW }));
    const plain = () => decide(newPod(1), shared, OPTIONS);
    plain();
    plain();
    const audited = decide(newPod(2, { tier: 'db' }), shared, OPTIONS);
    assert.equal(audited.patch, plain().patch, 'the Audit policy adds nothing to the writes');
    assert.match(audited.auditAnnotations.audit ?? '', /audit-db/);
    assert.equal(plain().auditAnnotations.audit, undefined);
    assert.deepEqual(Object.keys(audited.auditAnnotations), ['policies', 'placement', 'snapshot', 'audit']);
  });
});

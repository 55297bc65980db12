// The page's questions: a node's record, a search, a workload's placements
// from the occupancy and the recent decisions (the webhook's and the
// controller's, deferred and skipped marked), and a decision's explain — the
// very text `topogate explain` renders; and why empty sections are empty.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { renderTrace, type DecisionTrace } from '../../../src/policy/explain.ts';
import type { Decision } from '../../../src/policy/types.ts';
import { loadPolicies } from '../../../src/sources/policies/files.ts';
import { history } from '../../../src/view/history.ts';
import { viewQueries } from '../../../src/view/queries.ts';
import { recentDecisions } from '../../../src/view/recent.ts';
import { decisionRecord } from '../../../src/view/record.ts';
import { whyNoLeader, whyNothing } from '../../../src/view/why.ts';
import { NOW, snapshot, webPod } from './cluster.ts';

const policiesDir = fileURLToPath(new URL('../../../policies/', import.meta.url));

describe('the view queries over a small cluster', async () => {
  const s = snapshot();
  const { policies } = await loadPolicies([policiesDir]);
  const compiled = compile(policies, s);
  const options = { now: NOW, maxSourceAgeMs: 600_000 };
  const recent = recentDecisions();
  const patched = podRequest(webPod('web-abc12-1'), 'shop');
  const skipped = podRequest(webPod('web-abc12-2', { 'topogate.dev/skip': 'true' }), 'shop');
  recent.add(decisionRecord(patched, decide(patched, compiled, options), 0.1, 'webhook', NOW), patched);
  recent.add(decisionRecord(skipped, decide(skipped, compiled, options), 0.1, 'webhook', NOW), skipped);
  const deferred: Decision = { ...decide(patched, compiled, options), deferred: 'budget' };
  recent.add(decisionRecord(patched, deferred, 0.1, 'webhook', NOW), patched);
  recent.add(decisionRecord(patched, decide(patched, compiled, options), 3, 'controller', NOW), patched);
  const queries = viewQueries({
    snapshot: () => s,
    occupancy: () => s.pods,
    recent,
    history: history(),
    explain: (request) => decide(request, compiled, { ...options, explain: true }),
    now: () => NOW,
  });
  const ask = (name: string, query: string) => queries[name]!(new URLSearchParams(query));

  it("records the webhook's and the controller's decisions, deferred and skipped marked with why", () => {
    assert.deepEqual(
      recent.list().map((d) => [d.id, d.by, d.outcome, d.workload]),
      [
        [3, 'controller', 'patched', 'shop/Deployment/web'],
        [2, 'webhook', 'deferred', 'shop/Deployment/web'],
        [1, 'webhook', 'skipped', 'shop/Deployment/web'],
        [0, 'webhook', 'patched', 'shop/Deployment/web'],
      ],
    );
    assert.equal(recent.list()[1]!.reason, 'budget');
    assert.match(recent.list()[2]!.reason!, /topogate\.dev\/skip/);
    assert.ok(recent.list()[0]!.policies.length > 0, 'a policy placed it');
  });

  it("places a workload's bound Pods per zone and node, with the policies that placed them", () => {
    const found = ask('placements', 'of=shop/Deployment/web') as ReturnType<
      typeof import('../../../src/view/placements.ts').placements
    >;
    assert.deepEqual(found.byZone, [
      { zone: 'a', pods: 2 },
      { zone: 'b', pods: 1 },
    ]);
    assert.deepEqual(found.byNode[0], { node: 'a-1', zone: 'a', pods: 2 });
    assert.equal(found.bound, 3);
    assert.deepEqual(found.policies, recent.list()[0]!.policies);
    assert.equal(found.decisions.length, 4);
    const byNamespace = ask('placements', 'of=shop') as typeof found;
    assert.equal(byNamespace.bound, 3, 'a namespace sums its workloads');
    assert.deepEqual(ask('placements', ''), 'give ?of=NAMESPACE or ?of=NAMESPACE/Kind/name');
  });

  it('explains a decision with the text topogate explain prints', () => {
    const found = ask('explain', 'id=3') as { decision: { pod: string }; explain: string };
    const trace = decide(patched, compiled, { ...options, explain: true }).trace as DecisionTrace;
    assert.equal(found.explain, renderTrace(trace, 'Pod shop/web-abc12-1'));
    assert.match(found.explain, /^Pod shop\/web-abc12-1\n {2}workload shop\/Deployment\/web/);
    assert.match(String(ask('explain', 'id=99')), /no decision 99/);
    assert.match(String(ask('explain', 'id=x')), /no decision x/);
  });

  it("opens a node's record and finds nodes by name", () => {
    const record = ask('node', 'name=a-2') as { path: string[]; degraded: unknown };
    assert.deepEqual(record.path, ['a', 'b1', 'r2']);
    assert.deepEqual(record.degraded, { rttMs: 4.1, zoneRttMs: 0.2 });
    const etcdNode = ask('node', 'name=a-1') as { controlPlane: { component: string }[] };
    assert.deepEqual(
      etcdNode.controlPlane.map((c) => c.component),
      ['etcd'],
    );
    assert.equal(ask('node', 'name=zz'), 'no node zz in the model');
    assert.deepEqual(ask('search', 'q=A-'), {
      matches: [
        { name: 'a-1', zone: 'a' },
        { name: 'a-2', zone: 'a' },
        { name: 'a-3', zone: 'a' },
      ],
      more: false,
    });
    assert.equal(ask('node', `name=${'x'.repeat(600)}`), 'give ?name=NODE', 'bounded');
  });
});

describe('why a section is empty', () => {
  it('says no source, not permitted, not synced or nothing yet', () => {
    const base = { name: 'etcd' as const, synced: true, objects: 0 };
    assert.match(whyNothing(undefined, 'X')!, /^no source/);
    assert.match(whyNothing({ ...base, disabled: 'no --etcd-endpoints' }, 'X')!, /^no source: no --etcd-endpoints/);
    assert.match(whyNothing({ ...base, error: 'pods is forbidden: User …' }, 'X')!, /^not permitted/);
    assert.match(whyNothing({ ...base, synced: false }, 'X')!, /^not synced yet/);
    assert.match(whyNothing(base, 'X')!, /^nothing yet/);
    assert.equal(whyNothing({ ...base, objects: 3 }, 'X'), undefined);
  });

  it('says why the etcd leader is unknown', () => {
    assert.match(whyNoLeader(snapshot())!, /nothing yet: no etcd members/);
  });
});

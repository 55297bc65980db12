import assert from 'node:assert/strict';
import { test } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import type { KubeObject, Pod } from '../../../src/kube/types.ts';
import { auditCluster } from '../../../src/policy/audit.ts';
import { compareDecisions } from '../../../src/policy/compareDecisions.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { DecisionTrace } from '../../../src/policy/explain.ts';
import { policyReports } from '../../../src/policy/policyReport.ts';
import { readRecord } from '../../../src/policy/record.ts';
import { takeBack } from '../../../src/policy/takeBack.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { clusterObjects, NOW, OPTIONS, pod, policy } from './engine-cluster.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';

const ZONE = 'topology.kubernetes.io/zone';
const snapshot = buildSnapshot(clusterObjects(), { now: NOW });
const required = (zone: string) => ({
  nodeLabels: { required: [{ key: ZONE, operator: 'In' as const, values: [zone] }], preferred: [] },
});
const enforce = policy('zone-a', required('zone-a'), { match: { namespaces: ['shop'] } });
const watch = policy('watch', required('zone-b'), { match: { namespaces: ['shop'] }, enforcement: 'Audit' });
const nowhere = policy('nowhere', required('zone-z'), { match: { namespaces: ['lab'] } });

/** A Pod as the cluster holds it after the webhook (with the given policies) and the scheduler. */
function live(name: string, namespace: string, policies = [enforce, watch, nowhere]): Pod {
  const input = pod({}, { name, namespace, uid: `uid-${name}` });
  const decision = decide(podRequest(input, namespace), compile(policies, snapshot), OPTIONS);
  const admitted = fastJsonPatch.applyPatch(
    structuredClone(input),
    structuredClone(decision.patch) as fastJsonPatch.Operation[],
  ).newDocument;
  return { ...admitted, spec: { ...admitted.spec, nodeName: 'a-cpu' }, status: { phase: 'Pending' } } as Pod;
}

test('audit tallies Pods and workloads per policy, and PolicyReports say pass, warn and fail per namespace', () => {
  const pods = [live('in-force', 'shop'), live('before-policy', 'shop', []), live('lab-pod', 'lab')];
  const workloads: KubeObject[] = [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } } },
    },
  ];
  const report = auditCluster(pods, workloads, compile([enforce, watch, nowhere], snapshot), OPTIONS);
  const byName = new Map(report.policies.map((entry) => [entry.name, entry]));
  const counts = (name: string) => {
    const entry = byName.get(name)!;
    return [entry.enforcement, entry.matched, entry.wouldChange, entry.unsatisfiable, entry.workloads.matched];
  };
  assert.deepEqual(counts('zone-a'), ['Enforce', 2, 2, 0, 1]);
  assert.deepEqual(counts('watch'), ['Audit', 2, 2, 0, 1]);
  assert.deepEqual(counts('nowhere'), ['Enforce', 1, 0, 1, 0]);
  assert.deepEqual(byName.get('zone-a')!.examples.wouldChange, ['shop/in-force', 'shop/before-policy']);
  assert.deepEqual(byName.get('nowhere')!.examples.unsatisfiable, ['lab/lab-pod']);
  assert.deepEqual(byName.get('zone-a')!.workloads.examples.matched, ['Deployment/shop/web']);

  const reports = policyReports(report.results, NOW, ['gone']);
  const shop = reports.find((entry) => entry.metadata?.namespace === 'shop') as any;
  assert.equal(shop.apiVersion, 'wgpolicyk8s.io/v1alpha2');
  assert.equal(shop.kind, 'PolicyReport');
  assert.deepEqual(
    shop.results.map((result: any) => [result.policy, result.resources[0].name, result.result]),
    [
      ['watch', 'in-force', 'warn'],
      ['zone-a', 'in-force', 'pass'],
      ['watch', 'before-policy', 'warn'],
      ['zone-a', 'before-policy', 'warn'],
    ],
  );
  assert.deepEqual(shop.summary, { pass: 1, fail: 0, warn: 3, error: 0, skip: 0 });
  assert.equal(shop.results[0].timestamp.seconds, Math.floor(NOW / 1000));
  const lab = reports.find((entry) => entry.metadata?.namespace === 'lab') as any;
  assert.deepEqual(
    lab.results.map((result: any) => result.result),
    ['fail'],
  );
  const gone = reports.find((entry) => entry.metadata?.namespace === 'gone') as any;
  assert.deepEqual([gone.results, gone.summary.pass], [[], 0]);
});

test('compareDecisions says what changed between the record and today’s decision', () => {
  const then = readRecord(live('p', 'shop')).record;
  assert.ok(then);
  const original = takeBack(live('p', 'shop'), then);
  const again = (policies: (typeof enforce)[]) => {
    const decision = decide(podRequest(original, 'shop'), compile(policies, snapshot), {
      ...OPTIONS,
      explain: true,
    });
    const admitted = fastJsonPatch.applyPatch(
      structuredClone(original),
      structuredClone(decision.patch) as fastJsonPatch.Operation[],
    ).newDocument;
    return compareDecisions(then, readRecord(admitted).record, decision.trace as DecisionTrace);
  };
  assert.deepEqual(again([enforce, watch]), { differs: false, reasons: [] });
  const spread = policy('spread', { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] });
  assert.deepEqual(again([enforce, spread]).reasons.slice(0, 1), [
    'policy spread would be applied now, and was not then',
  ]);
  const narrowed = policy('zone-a', required('zone-a'), { match: { namespaces: ['other'] } });
  assert.match(again([narrowed]).reasons[0]!, /^policy zone-a was applied then, not now: it does not match now: /);
  const newer = policy('zone-a', required('zone-a'), { match: { namespaces: ['shop'] }, generation: 7 });
  assert.deepEqual(again([newer]).reasons, ['policy zone-a changed: generation ? then, 7 now']);
});

// Rolling policies out safely and seeing what they do (policy-v2.md), on a real
// control plane with the controller manager: a 50 % rollout over 40
// Deployments patches the Pods of some of them, every replica alike; an Audit
// policy changes no Pod but says what it would do (warnings, the API server's
// audit log, metrics, `topogate audit`, PolicyReports); DaemonSet Pods get
// nothing; an invalid SchedulingPolicy object shows Ready=False; `explain
// pod/…` names the policies and snapshot and says whether today's decision differs;
// a Deployment's later replicas come from the review memo.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { inRollout } from '../../src/policy/rollout.ts';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { coreApi, createNodes, kubectl, kubectlOk, metricSamples } from './harness/kube.ts';
import type { Topogate } from './harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate, topogateCli } from './harness/topogate.ts';
import { repoRoot } from './harness/versions.ts';
import { httpsGet, waitFor } from './harness/wait.ts';

const ZONE = 'topology.kubernetes.io/zone';
const DEPLOYMENTS = 40;
const policyReportCrd = join(
  repoRoot,
  '..',
  'shared',
  'fixtures',
  'real-world',
  'policyreport',
  'wg-policy-prototypes.crd-v1alpha2.wgpolicyk8s.io_policyreports.yaml',
);

const policies = `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: half}
spec:
  match: {namespaces: [rollout]}
  rollout: {percent: 50}
  rules: {nodeLabels: {required: [{key: ${ZONE}, operator: In, values: [zone-a, zone-b]}]}}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: watch}
spec:
  match: {namespaces: [audited]}
  enforcement: Audit
  rules: {nodeLabels: {required: [{key: ${ZONE}, operator: In, values: [zone-c]}]}}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: spread-daemons}
spec:
  match: {namespaces: [daemons]}
  rules: {spread: [{topologyKey: ${ZONE}}]}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: spread-replicas}
spec:
  match: {namespaces: [replicas]}
  rules: {spread: [{topologyKey: ${ZONE}}]}
`;

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    resources: [{group: "", resources: [pods]}]
    verbs: [create]
  - level: None
`;

const labels = (name: string) => ({ app: name });
const template = (name: string) => ({
  metadata: { labels: labels(name) },
  spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});
const deployment = (namespace: string, name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: { replicas, selector: { matchLabels: labels(name) }, template: template(name) },
});

describe('rolling policies out and seeing what they do', { timeout: 600_000 }, () => {
  let cluster: Cluster;
  let topogate: Topogate;
  let auditLog: string;

  // The CLI reads the cluster's SchedulingPolicy objects; the webhook's file policies it is given, as serve is.
  const live = () => ['--kubeconfig', cluster.kubeconfig, '--policies', join(cluster.dir, 'policies')];
  const pods = async (namespace: string): Promise<V1Pod[]> =>
    (await coreApi(cluster).listNamespacedPod({ namespace })).items;
  const topogateMetric = async (name: string, wanted: Record<string, string>) =>
    metricSamples((await httpsGet(`${topogate.url}/metrics`, { ca: topogate.caPem })).body, name)
      .filter((sample) => Object.entries(wanted).every(([key, value]) => sample.labels[key] === value))
      .reduce((sum, sample) => sum + sample.value, 0);

  before(async () => {
    const setup = join('/tmp', `topogate-rollout-e2e-${process.pid}`);
    mkdirSync(setup, { recursive: true });
    auditLog = join(setup, 'audit.log');
    writeFileSync(join(setup, 'audit-policy.yaml'), auditPolicy);
    cluster = await startCluster({
      apiServerArgs: [`--audit-policy-file=${join(setup, 'audit-policy.yaml')}`, `--audit-log-path=${auditLog}`],
    });
    await installTopogateCrds(cluster);
    await kubectlOk(cluster, ['apply', '-f', policyReportCrd]);
    await createNodes(
      coreApi(cluster),
      ['zone-a', 'zone-b', 'zone-c'].flatMap((zone) =>
        [1, 2].map((index) => ({ name: `${zone}-${index}`, labels: { [ZONE]: zone } })),
      ),
    );
    await applyAll(
      cluster,
      ['rollout', 'audited', 'daemons', 'replicas'].map((name) => ({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      })),
    );
    const dir = join(cluster.dir, 'policies');
    mkdirSync(dir);
    writeFileSync(join(dir, 'rollout.yaml'), policies);
    topogate = await startTopogate({ cluster, policies: dir });
    await registerWebhook(cluster, topogate);
    // The webhook configuration reaches the admission chain a moment after it is stored.
    await waitFor(
      async () => {
        const dryRun = await kubectl(
          cluster,
          ['create', '-n', 'daemons', '--dry-run=server', '-o', 'json', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Pod',
            ...template('marker'),
            metadata: { name: 'marker', labels: labels('marker') },
          }),
        );
        return (
          dryRun.code === 0 &&
          JSON.parse(dryRun.stdout).metadata?.annotations?.['topogate.dev/policies'] === 'spread-daemons'
        );
      },
      { what: 'topogate called for new Pods', timeoutMs: 30_000, intervalMs: 250 },
    );
  });

  afterEach((t) => {
    if (!t.passed && topogate)
      process.stderr.write(`--- ${t.name}: the end of topogate's output\n${topogate.output().slice(-4000)}\n`);
  });

  after(async () => {
    await topogate?.stop();
    await cluster?.stop();
  });

  test('a 50 % rollout over 40 Deployments patches the Pods of 12-28 of them, every replica alike', async () => {
    const names = Array.from({ length: DEPLOYMENTS }, (_, index) => `web-${String(index).padStart(2, '0')}`);
    await applyAll(
      cluster,
      names.map((name) => deployment('rollout', name, 2)),
    );
    await waitFor(async () => (await pods('rollout')).length === 2 * DEPLOYMENTS, {
      what: `${2 * DEPLOYMENTS} Pods made by the controller manager`,
      timeoutMs: 120_000,
      intervalMs: 1000,
    });
    const byDeployment = new Map<string, string[]>();
    for (const pod of await pods('rollout')) {
      const name = pod.metadata!.labels!.app!;
      byDeployment.set(name, [
        ...(byDeployment.get(name) ?? []),
        pod.metadata?.annotations?.['topogate.dev/policies'] ?? '',
      ]);
    }
    const patched = names.filter((name) => {
      const applied = byDeployment.get(name)!;
      assert.equal(applied.length, 2, name);
      assert.ok(
        applied.every((value) => value === applied[0]),
        `the replicas of ${name} differ: ${applied.join(' | ')}`,
      );
      return applied[0] === 'half';
    });
    assert.ok(patched.length >= 12 && patched.length <= 28, `${patched.length} of ${DEPLOYMENTS} patched`);
    // Exactly the workloads the documented hash puts in (FNV-1a of namespace/Deployment/name, mod 100, below 50).
    assert.deepEqual(
      patched,
      names.filter((name) => inRollout(50, { namespace: 'rollout', kind: 'Deployment', name })),
    );
    const one = (await pods('rollout')).find((pod) => pod.metadata?.labels?.app === patched[0])!;
    const record = JSON.parse(one.metadata!.annotations!['topogate.dev/decision']!);
    assert.deepEqual(record.policies, [{ name: 'half', rules: { 'nodeLabels.required': 'added' } }]);
    assert.match(record.snapshot, /^[0-9a-f]{12}$/);
    assert.equal(
      await topogateMetric('topogate_policy_applied_total', { policy: 'half', enforcement: 'Enforce' }),
      2 * patched.length,
    );
  });

  test("a Deployment's replicas after its second are not parsed again: the API server sends them alike but for a few values", async () => {
    const remembered = () => topogateMetric('topogate_admission_reviews_remembered_total', {});
    const before = await remembered();
    await applyAll(cluster, [deployment('replicas', 'scaled', 5)]);
    await waitFor(async () => (await pods('replicas')).length === 5, {
      what: '5 Pods made by the controller manager',
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const applied = (await pods('replicas')).map((pod) => pod.metadata?.annotations?.['topogate.dev/policies']);
    assert.deepEqual(applied, Array(5).fill('spread-replicas'));
    assert.ok((await remembered()) - before >= 3, `${(await remembered()) - before} of the 5 remembered`);
  });

  test('an Audit policy changes no Pod; its would-be outputs are warnings, audit annotations and metrics', async () => {
    const created = await kubectl(
      cluster,
      ['create', '-n', 'audited', '-o', 'json', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        ...template('watched'),
        metadata: { name: 'watched', labels: labels('watched') },
      }),
    );
    assert.equal(created.code, 0, created.stderr);
    assert.match(
      created.stderr,
      /Warning: audit: policy watch would add required topology\.kubernetes\.io\/zone In \[zone-c\]/,
    );
    const pod = JSON.parse(created.stdout) as V1Pod;
    assert.equal(pod.spec?.affinity, undefined);
    assert.equal(pod.metadata?.annotations?.['topogate.dev/policies'], undefined);
    assert.equal(pod.metadata?.annotations?.['topogate.dev/decision'], undefined);
    assert.equal(await topogateMetric('topogate_policy_matches_total', { policy: 'watch', enforcement: 'Audit' }), 1);
    assert.equal(await topogateMetric('topogate_policy_applied_total', { policy: 'watch', enforcement: 'Audit' }), 1);
    // The admission response's auditAnnotations reach the API server's audit log, under the webhook's name.
    let event: { annotations?: Record<string, string> } | undefined;
    await waitFor(
      async () => {
        event = readFileSync(auditLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
          .find((entry) => entry.objectRef?.namespace === 'audited' && entry.objectRef?.name === 'watched');
        return event !== undefined;
      },
      { what: 'the Pod in the audit log', timeoutMs: 15_000, intervalMs: 250 },
    );
    assert.deepEqual(JSON.parse(event!.annotations!['pods.topogate.dev/audit']!), {
      watch: 'would add required topology.kubernetes.io/zone In [zone-c]',
    });
  });

  test('Pods of a DaemonSet get no placement outputs; a Deployment beside it does', async () => {
    await applyAll(cluster, [
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'agent', namespace: 'daemons' },
        spec: { selector: { matchLabels: labels('agent') }, template: template('agent') },
      },
      deployment('daemons', 'api', 1),
    ]);
    await waitFor(async () => (await pods('daemons')).length === 7, {
      what: 'six DaemonSet Pods and one Deployment Pod',
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    for (const pod of await pods('daemons')) {
      const applied = pod.metadata?.annotations?.['topogate.dev/policies'];
      assert.equal(applied, pod.metadata?.labels?.app === 'agent' ? undefined : 'spread-daemons', pod.metadata?.name);
    }
    const daemonPod = (await pods('daemons')).find((pod) => pod.metadata?.labels?.app === 'agent')!;
    const explained = await topogateCli(['explain', `pod/daemons/${daemonPod.metadata!.name}`, ...live()]);
    assert.match(explained, /owned by DaemonSet agent: /);
  });

  test('topogate audit prints per policy what it matches and would change, as a table and JSON, and writes PolicyReports', async () => {
    const json = JSON.parse(await topogateCli(['audit', ...live(), '--output', 'json', '--write-reports']));
    const byName = new Map((json.policies as any[]).map((policy) => [policy.name, policy]));
    const half = byName.get('half');
    const patched = (await pods('rollout')).filter(
      (pod) => pod.metadata?.annotations?.['topogate.dev/policies'] === 'half',
    );
    assert.equal(half.matched, patched.length);
    assert.equal(half.wouldChange, patched.length);
    assert.equal(half.unsatisfiable, 0);
    const watch = byName.get('watch');
    assert.deepEqual([watch.matched, watch.wouldChange, watch.examples.wouldChange], [1, 1, ['audited/watched']]);
    assert.equal(watch.enforcement, 'Audit');
    const table = await topogateCli(['audit', ...live()]);
    assert.match(table, /^POLICY\s+ENFORCEMENT\s+MATCHED\s+WOULD-CHANGE\s+UNSATISFIABLE/);
    assert.match(table, /\nwatch\s+Audit\s+1\s+1\s+0\s/);
    const report = JSON.parse(
      await kubectlOk(cluster, [
        'get',
        'policyreports.v1alpha2.wgpolicyk8s.io',
        'topogate',
        '-n',
        'audited',
        '-o',
        'json',
      ]),
    );
    assert.equal(report.summary.warn, 1);
    assert.deepEqual(
      report.results.map((result: any) => [result.policy, result.result, result.resources[0].name]),
      [['watch', 'warn', 'watched']],
    );
  });

  test('an invalid SchedulingPolicy object shows Ready=False with the loader’s message in kubectl get', async () => {
    const object = (name: string, values: string[]) => ({
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'SchedulingPolicy',
      metadata: { name },
      spec: {
        match: { namespaces: ['nowhere'] },
        rules: { nodeLabels: { required: [{ key: 'gpus', operator: 'Gt', values }] } },
      },
    });
    await applyAll(cluster, [object('bad-gt', ['99999999999999999999']), object('good-gt', ['2'])]);
    const ready = (name: string) =>
      kubectlOk(cluster, [
        'get',
        'schedulingpolicy',
        name,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
      ]);
    await waitFor(async () => (await ready('bad-gt')) === 'False' && (await ready('good-gt')) === 'True', {
      what: 'Ready on both objects',
      timeoutMs: 15_000,
      intervalMs: 250,
    });
    const bad = JSON.parse(await kubectlOk(cluster, ['get', 'schedulingpolicy', 'bad-gt', '-o', 'json']));
    assert.equal(bad.status.observedGeneration, bad.metadata.generation);
    assert.equal(
      bad.status.conditions[0].message,
      'SchedulingPolicy/bad-gt: spec.rules.nodeLabels.required[0].values[0]: "99999999999999999999" is not an integer (operator Gt)',
    );
    const listed = await kubectlOk(cluster, ['get', 'schedulingpolicies']);
    assert.match(listed, /^NAME\s+READY\s+REASON\s+PRIORITY\s+ENFORCEMENT\s+ROLLOUT/);
    assert.match(listed, /\nbad-gt\s+False\s+Invalid\s/);
  });

  test('explain pod/… names the policies and snapshot, and says whether today’s decision differs', async () => {
    const pod = (await pods('rollout')).find(
      (candidate) => candidate.metadata?.annotations?.['topogate.dev/policies'] === 'half',
    )!;
    const record = JSON.parse(pod.metadata!.annotations!['topogate.dev/decision']!);
    const reference = `pod/rollout/${pod.metadata!.name}`;
    const same = await topogateCli(['explain', reference, ...live()]);
    assert.match(
      same,
      new RegExp(`then: topology snapshot ${record.snapshot}; applied half: nodeLabels.required added`),
    );
    assert.match(same, /\nnow: {2}topology snapshot [0-9a-f]{12}; applied half: nodeLabels.required added/);
    assert.match(same, /today’s decision is the same/);

    await applyAll(cluster, [
      {
        apiVersion: 'topogate.dev/v1alpha1',
        kind: 'SchedulingPolicy',
        metadata: { name: 'later' },
        spec: { priority: 5, match: { namespaces: ['rollout'] }, rules: { spread: [{ topologyKey: ZONE }] } },
      },
    ]);
    const differs = JSON.parse(await topogateCli(['explain', reference, ...live(), '--output', 'json']));
    assert.equal(differs.differs, true);
    assert.ok(
      differs.reasons.includes('policy later would be applied now, and was not then'),
      differs.reasons.join('\n'),
    );
    assert.equal(differs.then.snapshot, record.snapshot);
  });
});

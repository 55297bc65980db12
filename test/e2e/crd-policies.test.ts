// Policies from SchedulingPolicy objects on a real API server: created, they
// place the Pods created afterwards; edited into a spec the CRD's schema
// accepts but topogate refuses, the last good version stays in force and
// /readyz says why; deleted, they no longer apply. A file policy wins its name.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { boundNode, createNodes, coreApi, kubectl, kubectlOk } from './harness/kube.ts';
import type { Topogate } from './harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate } from './harness/topogate.ts';
import { httpsGet, waitFor } from './harness/wait.ts';

const appliedAnnotation = 'topogate.dev/policies';
const disk = (value: string) => ({ key: 'disk', operator: 'In', values: [value] });

function schedulingPolicy(name: string, namespace: string, required: object[]) {
  return {
    apiVersion: 'topogate.dev/v1alpha1',
    kind: 'SchedulingPolicy',
    metadata: { name },
    spec: { match: { namespaces: [namespace] }, rules: { nodeLabels: { required } } },
  };
}

const filePolicy = `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: from-file}
spec:
  match: {namespaces: [file-team]}
  rules: {nodeLabels: {required: [{key: disk, operator: In, values: [hdd]}]}}
`;

/** The CRD's schema takes it (a label value, an integer by its CEL rule); topogate does not (not an int64). */
const tooBig = { key: 'gpus', operator: 'Gt', values: ['99999999999999999999'] };
const tooBigError =
  'SchedulingPolicy/crd-disk: spec.rules.nodeLabels.required[1].values[0]: "99999999999999999999" is not an integer (operator Gt)';

const pod = (name: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name } },
  spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});

const diskValues = (p: V1Pod | undefined) =>
  p?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms
    .flatMap((term) => term.matchExpressions ?? [])
    .filter((e) => e.key === 'disk')
    .map((e) => e.values ?? []);

describe('SchedulingPolicy objects behind a real API server', { timeout: 300_000 }, () => {
  let cluster: Cluster;
  let topogate: Topogate;

  const create = async (namespace: string, name: string, ...flags: string[]) => {
    const result = await kubectl(
      cluster,
      ['create', '-n', namespace, '-o', 'json', ...flags, '-f', '-'],
      JSON.stringify(pod(name)),
    );
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as V1Pod;
  };

  /** Polls a server-side dry run until the webhook gives a Pod of the namespace the policies named (none: ''). */
  const untilApplied = (namespace: string, policies: string) =>
    waitFor(
      async () =>
        ((await create(namespace, 'probe', '--dry-run=server')).metadata?.annotations?.[appliedAnnotation] ?? '') ===
        policies,
      {
        what: `Pods in ${namespace} placed by "${policies}"`,
        timeoutMs: 30_000,
        intervalMs: 250,
      },
    );

  const readyz = () => httpsGet(`${topogate.url}/readyz`, { ca: topogate.caPem });

  const untilReadyz = (holds: (body: string) => boolean, what: string) =>
    waitFor(
      async () => {
        const answer = await readyz();
        return answer.status === 200 && holds(answer.body);
      },
      { what, timeoutMs: 30_000, intervalMs: 250 },
    );

  before(async () => {
    cluster = await startCluster();
    await installTopogateCrds(cluster);
    await createNodes(
      coreApi(cluster),
      ['nvme', 'ssd', 'hdd'].map((kind) => ({ name: `${kind}-1`, labels: { disk: kind } })),
    );
    await applyAll(
      cluster,
      ['crd-team', 'file-team'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    );
    const policies = join(cluster.dir, 'policies');
    mkdirSync(policies);
    writeFileSync(join(policies, 'from-file.yaml'), filePolicy);
    topogate = await startTopogate({ cluster, policies });
    await registerWebhook(cluster, topogate);
    await untilApplied('file-team', 'from-file');
  });

  afterEach((t) => {
    if (!t.passed && topogate)
      process.stderr.write(`--- ${t.name}: the end of topogate's output\n${topogate.output().slice(-4000)}\n`);
  });

  after(async () => {
    await topogate?.stop();
    await cluster?.stop();
  });

  test('a SchedulingPolicy object created in the cluster places the Pods created afterwards', async () => {
    await untilApplied('crd-team', '');
    await applyAll(cluster, [schedulingPolicy('crd-disk', 'crd-team', [disk('nvme')])]);
    await untilApplied('crd-team', 'crd-disk');
    const created = await create('crd-team', 'app-1');
    assert.deepEqual(diskValues(created), [['nvme']]);
    assert.equal(await boundNode(coreApi(cluster), 'crd-team', 'app-1'), 'nvme-1');
    assert.match((await readyz()).body, /\[\+\]policies ok\n/);
  });

  test('edited into a spec the CRD accepts but topogate refuses, its last good version stays and /readyz says why', async () => {
    await applyAll(cluster, [schedulingPolicy('crd-disk', 'crd-team', [disk('ssd'), tooBig])]);
    const stored = JSON.parse(await kubectlOk(cluster, ['get', 'schedulingpolicy', 'crd-disk', '-o', 'json'])) as {
      spec: { rules: { nodeLabels: { required: unknown[] } } };
    };
    assert.deepEqual(stored.spec.rules.nodeLabels.required, [disk('ssd'), tooBig]);
    await untilReadyz((body) => body.includes(tooBigError), 'the invalid object in /readyz');
    assert.match(
      (await readyz()).body,
      /\[\+\]policies ok: invalid SchedulingPolicy objects, their last good versions stay in force: /,
    );
    assert.match(topogate.output(), /SchedulingPolicy objects refused; the last good version of each stays in force/);

    const created = await create('crd-team', 'app-2');
    assert.equal(created.metadata?.annotations?.[appliedAnnotation], 'crd-disk');
    assert.deepEqual(diskValues(created), [['nvme']]);
  });

  test('a valid edit takes effect and clears the error', async () => {
    await applyAll(cluster, [schedulingPolicy('crd-disk', 'crd-team', [disk('ssd')])]);
    await untilReadyz((body) => !body.includes('SchedulingPolicy/'), 'the error cleared from /readyz');
    const created = await create('crd-team', 'app-3');
    assert.deepEqual(diskValues(created), [['ssd']]);
    assert.equal(await boundNode(coreApi(cluster), 'crd-team', 'app-3'), 'ssd-1');
  });

  test('an API server restart cuts the watch; the object seen last stays in force and is listed again', async () => {
    await cluster.restartApiServer();
    const created = await create('crd-team', 'app-restart');
    assert.equal(created.metadata?.annotations?.[appliedAnnotation], 'crd-disk');
    assert.deepEqual(diskValues(created), [['ssd']]);
    await untilReadyz(
      (body) => body.includes('[+]policies ok\n') && body.includes('readyz check passed'),
      'topogate ready again',
    );
    assert.match(topogate.output(), /SchedulingPolicy objects: .*keeping its last objects and listing again/);
    await applyAll(cluster, [schedulingPolicy('crd-disk', 'crd-team', [disk('hdd')])]);
    await waitFor(async () => diskValues(await create('crd-team', 'probe', '--dry-run=server'))?.[0]?.[0] === 'hdd', {
      what: 'an edit after the restart taking effect',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  });

  test('deleted, the policy no longer applies', async () => {
    await kubectlOk(cluster, ['delete', 'schedulingpolicy', 'crd-disk']);
    await untilApplied('crd-team', '');
    const created = await create('crd-team', 'app-4');
    assert.equal(created.spec?.affinity, undefined);
    assert.equal(created.metadata?.annotations?.[appliedAnnotation], undefined);
  });

  test("an object named like a file policy is reported, and the file's policy is the one applied", async () => {
    await applyAll(cluster, [schedulingPolicy('from-file', 'crd-team', [disk('ssd')])]);
    await untilReadyz(
      (body) => body.includes('SchedulingPolicy/from-file: metadata.name: duplicate policy name "from-file"'),
      'the duplicate in /readyz',
    );
    assert.deepEqual(diskValues(await create('file-team', 'app-5')), [['hdd']]);
    const other = await create('crd-team', 'app-6');
    assert.equal(other.spec?.affinity, undefined);
  });
});

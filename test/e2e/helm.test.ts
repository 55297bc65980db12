// charts/topogate with a real helm (built from the Go module proxy, test/e2e/helm) against the real
// API server: lint, template, install, upgrade and uninstall, and uninstall leaves nothing behind.
// There is no kubelet: the Deployment's Pods are never run here (test/e2e/image.test.ts runs the image).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { startHelm, type Helm } from './harness/helm.ts';
import { kubectlOk } from './harness/kube.ts';
import { repoRoot } from './harness/versions.ts';
import { applyAll } from './harness/topogate.ts';

type Json = Record<string, any>;

const chart = join(repoRoot, 'charts', 'topogate');
const namespace = 'topogate-system';
const release = 'topogate';
const topogateCrds = [
  'schedulingpolicies.topogate.dev',
  'networktopologies.topogate.dev',
  'etcdclusters.topogate.dev',
  'controlplanes.topogate.dev',
];
const everything = [
  'certificates.certManager.enabled=true',
  'metrics.serviceMonitor.enabled=true',
  'metrics.prometheusRule.enabled=true',
  'ui.enabled=true',
  'probe.enabled=true',
  'probe.bandwidth.period=10m',
  'controlPlane.etcdMetrics={http://10.0.0.5:2381/metrics}',
  'controlPlane.schedulerMetrics=https://10.0.0.5:10259/metrics',
  'controlPlane.schedulerInsecureSkipTlsVerify=true',
];

/** The Prometheus Operator's two kinds, as far as the API server needs to store what the chart makes. */
const monitoringCrds = ['ServiceMonitor', 'PrometheusRule'].map((kind) => {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.monitoring.coreos.com` },
    spec: {
      group: 'monitoring.coreos.com',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
});

describe('the Helm chart, with a real helm and API server', { timeout: 1_200_000 }, () => {
  let helm: Helm;
  let cluster: Cluster;

  const render = async (...sets: string[]) =>
    parseAllDocuments(
      await helm.ok(['template', release, chart, '-n', namespace, ...sets.flatMap((s) => ['--set', s])]),
    )
      .map((doc) => doc.toJS() as Json)
      .filter((object) => object !== null);
  const getJson = async (...args: string[]) =>
    JSON.parse(await kubectlOk(cluster, ['get', ...args, '-o', 'json'])) as Json;

  /** Every object of every listable kind, by name, less what churns by itself (events, leases, endpoints). */
  const snapshot = async () => {
    const kinds = (await kubectlOk(cluster, ['api-resources', '--verbs=list', '-o', 'name']))
      .split('\n')
      .filter((kind) => kind !== '' && !/^(events|leases|endpoints|endpointslices)(\.|$)/.test(kind));
    return (await kubectlOk(cluster, ['get', kinds.join(','), '--all-namespaces', '-o', 'name']))
      .split('\n')
      .filter((name) => name !== '')
      .sort();
  };

  /** What each of topogate's CRDs still waits for, when one is left: its Terminating condition. */
  const terminatingCrds = async () => {
    const crds = (await getJson('crd')).items as Json[];
    return crds
      .filter((crd) => topogateCrds.includes(crd.metadata.name))
      .map((crd) => {
        const terminating = crd.status?.conditions?.find((c: Json) => c.type === 'Terminating');
        return `${crd.metadata.name} left: ${terminating?.reason ?? 'no Terminating condition'} ${terminating?.message ?? ''}`;
      })
      .join('\n');
  };

  before(async () => {
    helm = await startHelm(() => cluster?.kubeconfig);
    cluster = await startCluster();
    await applyAll(cluster, [
      ...monitoringCrds,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    ]);
  });

  after(async () => {
    await cluster?.stop();
    helm?.remove();
  });

  test('helm lint passes with the defaults and with every option on', async () => {
    await helm.ok(['lint', '--strict', chart]);
    await helm.ok(['lint', '--strict', chart, ...everything.flatMap((s) => ['--set', s])]);
  });

  test('values.schema.json refuses a bad value with its path', async () => {
    const ran = await helm.run(['template', release, chart, '--set', 'webhook.failurePolicy=Sometimes']);
    assert.notEqual(ran.code, 0);
    assert.match(ran.stderr, /failurePolicy/);
  });

  test("webhook.defer and webhook.deferMax are serve's --defer and --defer-max; the schema refuses other modes", async () => {
    const args = async (...sets: string[]) =>
      (await render(...sets)).find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[];
    const flag = (all: string[], name: string) => all[all.indexOf(name) + 1];
    const defaults = await args();
    assert.deepEqual([flag(defaults, '--defer'), flag(defaults, '--defer-max')], ['overrun', '60s']);
    const set = await args('webhook.defer=always', 'webhook.deferMax=2m30s');
    assert.deepEqual([flag(set, '--defer'), flag(set, '--defer-max')], ['always', '2m30s']);
    const ran = await helm.run(['template', release, chart, '--set', 'webhook.defer=sometimes']);
    assert.notEqual(ran.code, 0);
    assert.match(ran.stderr, /webhook\/defer/);
  });

  test("controlPlane values are serve's control-plane flags; the schema refuses a URL that is none", async () => {
    const args = async (...sets: string[]) =>
      (await render(...sets)).find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[];
    const defaults = await args();
    assert.equal(defaults[defaults.indexOf('--controlplane-interval') + 1], '15s');
    assert.ok(!defaults.some((arg) => /^--(etcd|scheduler)-/.test(arg)), defaults.join(' '));
    const set = await args(
      'controlPlane.etcdMetrics={http://10.0.0.5:2381/metrics,http://10.0.0.6:2381/metrics}',
      'controlPlane.schedulerMetrics=https://10.0.0.5:10259/metrics',
      'controlPlane.schedulerInsecureSkipTlsVerify=true',
      'controlPlane.interval=30s',
    );
    const at = set.indexOf('--controlplane-interval');
    assert.deepEqual(set.slice(at, at + 9), [
      '--controlplane-interval',
      '30s',
      '--etcd-metrics',
      'http://10.0.0.5:2381/metrics',
      '--etcd-metrics',
      'http://10.0.0.6:2381/metrics',
      '--scheduler-metrics',
      'https://10.0.0.5:10259/metrics',
      '--scheduler-insecure-skip-tls-verify',
    ]);
    const ran = await helm.run(['template', release, chart, '--set', 'controlPlane.schedulerMetrics=10.0.0.5:10259']);
    assert.notEqual(ran.code, 0);
    assert.match(ran.stderr, /controlPlane\/schedulerMetrics/);
  });

  test('probe.bandwidth and probe.extraArgs are the agents’ flags; with metrics on, a PodMonitor scrapes them', async () => {
    const probe = async (...sets: string[]) => {
      const rendered = await render('probe.enabled=true', ...sets);
      const daemonSet = rendered.find((o) => o.kind === 'DaemonSet')!;
      return { args: daemonSet.spec.template.spec.containers[0].args as string[], rendered, daemonSet };
    };
    const off = await probe();
    assert.deepEqual(off.args, ['probe', '--namespace=$(POD_NAMESPACE)', '--listen=$(POD_IP):9471']);
    assert.equal(off.rendered.filter((o) => o.kind === 'PodMonitor').length, 0, 'no PodMonitor without metrics');
    const on = await probe(
      'probe.bandwidth.period=10m',
      'probe.bandwidth.bytes=64Mi',
      'probe.extraArgs[0]=--interval=2s',
      'metrics.serviceMonitor.enabled=true',
    );
    assert.deepEqual(on.args.slice(3), ['--bandwidth-period', '10m', '--bandwidth-bytes', '64Mi', '--interval=2s']);
    const monitor = on.rendered.find((o) => o.kind === 'PodMonitor')!;
    assert.deepEqual(monitor.spec.selector.matchLabels, on.daemonSet.spec.selector.matchLabels);
    assert.deepEqual(monitor.spec.namespaceSelector.matchNames, [namespace]);
    const port = monitor.spec.podMetricsEndpoints[0].port;
    assert.ok(on.daemonSet.spec.template.spec.containers[0].ports.some((p: Json) => p.name === port));
    const ran = await helm.run(['template', release, chart, '--set', 'probe.bandwidth.period=often']);
    assert.notEqual(ran.code, 0);
    assert.match(ran.stderr, /probe\/bandwidth\/period/);
  });

  test('the CRDs, RBAC rules and webhook are those of manifests/', async () => {
    const rendered = await render();
    const manifests = readdirSync(join(repoRoot, 'manifests'))
      .filter((file) => file.endsWith('.yaml') && !/^(kustomization|probe-.*)\.yaml$/.test(file))
      .flatMap((file) => parseAllDocuments(readFileSync(join(repoRoot, 'manifests', file), 'utf8')))
      .map((doc) => doc.toJS() as Json)
      .filter((object) => object !== null);
    const crdFiles = readdirSync(join(repoRoot, 'manifests', 'crds')).map(
      (file) => parse(readFileSync(join(repoRoot, 'manifests', 'crds', file), 'utf8')) as Json,
    );
    const renderedCrds = rendered.filter((o) => o.kind === 'CustomResourceDefinition');
    assert.deepEqual(
      renderedCrds.map((crd) => crd.metadata.name).sort(),
      crdFiles.map((crd) => crd.metadata.name).sort(),
    );
    for (const crd of crdFiles)
      assert.deepEqual(
        renderedCrds.find((r) => r.metadata.name === crd.metadata.name)?.spec,
        crd.spec,
        crd.metadata.name,
      );

    // Every grant of manifests/, under the same name for a release called topogate in topogate-system.
    const grants = manifests.filter((o) => /^(Cluster)?Role(Binding)?$|^ServiceAccount$/.test(o.kind));
    assert.ok(grants.length >= 8);
    for (const grant of grants) {
      const found = rendered.find((o) => o.kind === grant.kind && o.metadata.name === grant.metadata.name);
      assert.ok(found, `${grant.kind} ${grant.metadata.name}`);
      assert.equal(found.metadata.namespace, grant.metadata.namespace);
      assert.deepEqual([found.rules, found.roleRef, found.subjects], [grant.rules, grant.roleRef, grant.subjects]);
    }

    const webhook = (objects: Json[]) => {
      const [hook] = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!.webhooks;
      const { clientConfig, ...rest } = hook;
      return { ...rest, path: clientConfig.service.path, port: clientConfig.service.port };
    };
    assert.deepEqual(webhook(rendered), webhook(manifests));
  });

  test('the default install lets serve release deferred Pods: the placement RBAC is on unless webhook.defer=never', async () => {
    const placement = (objects: Json[]) =>
      objects.filter((o) => String(o.metadata?.name).endsWith('-placement') || o.metadata?.name?.endsWith('-lease'));
    const byDefault = await render();
    const role = byDefault.find((o) => o.kind === 'ClusterRole' && o.metadata.name === `${release}-placement`);
    assert.ok(role, 'the default render has the placement ClusterRole');
    assert.ok(role.rules.some((rule: Json) => rule.resources.includes('pods') && rule.verbs.includes('patch')));
    assert.equal(byDefault.filter((o) => o.kind.startsWith('MutatingAdmissionPolicy')).length, 0, 'no gate plane');
    assert.deepEqual(placement(await render('webhook.defer=never')), []);
  });

  test('the gate plane is manifests/gate-plane/ for a release called topogate in topogate-system', async () => {
    const rendered = await render('gatePlane.enabled=true');
    const expected = parseAllDocuments(
      readFileSync(join(repoRoot, 'manifests', 'gate-plane', 'gate-plane.yaml'), 'utf8'),
    )
      .map((doc) => doc.toJS() as Json)
      .filter((object) => object !== null);
    assert.deepEqual(
      expected.map((object) => object.kind),
      [
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'MutatingAdmissionPolicy',
        'MutatingAdmissionPolicyBinding',
      ],
    );
    for (const object of expected) {
      const found = rendered.find((o) => o.kind === object.kind && o.metadata.name === object.metadata.name);
      assert.ok(found, `${object.kind} ${object.metadata.name} is rendered`);
      const compared = (o: Json) => [o.metadata.namespace, o.rules, o.roleRef, o.subjects, o.spec];
      assert.deepEqual(compared(found), compared(object), `${object.kind} ${object.metadata.name}`);
    }
  });

  test('cert-manager mode: a Certificate for the Service names and the CA injected from it, no Secret of the chart', async () => {
    const rendered = await render('certificates.certManager.enabled=true');
    const certificate = rendered.find((o) => o.kind === 'Certificate')!;
    assert.ok(certificate.spec.dnsNames.includes(`${release}.${namespace}.svc`));
    assert.equal(rendered.find((o) => o.kind === 'Issuer')?.spec.selfSigned !== undefined, true);
    const hook = rendered.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
    assert.equal(hook.metadata.annotations['cert-manager.io/inject-ca-from'], `${namespace}/${release}`);
    assert.equal(hook.webhooks[0].clientConfig.caBundle, undefined);
    assert.equal(rendered.filter((o) => o.kind === 'Secret').length, 0);
  });

  test('install, upgrade and uninstall against the API server; uninstall leaves nothing behind', async () => {
    const before = await snapshot();
    await helm.ok([
      'install',
      release,
      chart,
      '-n',
      namespace,
      '--set',
      'metrics.serviceMonitor.enabled=true',
      '--set',
      'metrics.prometheusRule.enabled=true',
      '--set-string',
      'policies.spread\\.yaml=apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: spread}\nspec:\n  rules:\n    spread: [{topologyKey: topology.kubernetes.io/zone}]\n',
    ]);

    const secret = await getJson('secret', '-n', namespace, `${release}-tls`);
    const hook = await getJson('mutatingwebhookconfiguration', release);
    assert.equal(hook.webhooks[0].clientConfig.caBundle, secret.data['ca.crt'], 'the caBundle is the Secret’s CA');
    assert.deepEqual(hook.webhooks[0].clientConfig.service, { name: release, namespace, path: '/mutate', port: 443 });
    for (const crd of topogateCrds)
      await kubectlOk(cluster, ['wait', '--for=condition=Established', '--timeout=60s', `crd/${crd}`]);
    // In a real cluster topogate's informers list these kinds at once, which starts the API server's
    // cache for each. Nothing runs the Pods here, so list them as topogate would: a CRD deleted before
    // its cache ever started waits for it, behind the CRD finalizer's growing backoff ("storage is
    // (re)initializing"), and uninstall then took minutes in CI.
    await kubectlOk(cluster, ['get', topogateCrds.map((crd) => crd.split('.')[0]).join(','), '-A']);
    const deployment = await getJson('deployment', '-n', namespace, release);
    assert.equal(deployment.spec.replicas, 2);
    assert.equal(deployment.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem, true);
    const policies = await getJson('configmap', '-n', namespace, `${release}-policies`);
    assert.match(policies.data['spread.yaml'], /name: spread/);
    await getJson('servicemonitor', '-n', namespace, release);
    await getJson('prometheusrule', '-n', namespace, release);
    await getJson('role', '-n', 'kube-system', `${release}-control-plane`);
    assert.equal(
      (
        await kubectlOk(cluster, [
          'auth',
          'can-i',
          'watch',
          'nodes',
          `--as=system:serviceaccount:${namespace}:${release}`,
        ])
      ).trim(),
      'yes',
    );

    await helm.ok(['upgrade', release, chart, '-n', namespace, '--reuse-values', '--set', 'webhook.replicas=3']);
    assert.equal((await getJson('deployment', '-n', namespace, release)).spec.replicas, 3);
    const upgraded = await getJson('secret', '-n', namespace, `${release}-tls`);
    assert.deepEqual(upgraded.data, secret.data, 'an upgrade keeps the certificates');
    assert.equal(JSON.parse(await helm.ok(['status', release, '-n', namespace, '-o', 'json'])).version, 2);

    // --wait=legacy polls with GETs: helm 4's default kstatus watcher can miss a deletion event and then
    // report a deleted CRD as Terminating until the timeout (helm/helm#31766).
    const uninstalled = await helm.run(['uninstall', release, '-n', namespace, '--wait=legacy', '--timeout', '3m']);
    assert.equal(uninstalled.code, 0, `helm uninstall: ${uninstalled.stderr}\n${await terminatingCrds()}`);
    assert.deepEqual(await snapshot(), before);
  });
});

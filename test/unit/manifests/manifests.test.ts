// The invariants of the deployable manifests: least privilege, Pod Security
// `restricted`, a webhook that fails open and never sees its own Pods, and
// parts that refer to each other by the right names.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { defaultNamespace, manifestsDir, readManifests } from '../../../src/cli/manifests.ts';
import { parseQuantity } from '../../../src/kube/quantity.ts';

const objects = await readManifests(manifestsDir);

function the(kind: string, name?: string): Record<string, any> {
  const found = objects.filter(
    (object) => object.kind === kind && (name === undefined || object.metadata?.name === name),
  );
  assert.equal(found.length, 1, `exactly one ${kind}${name ? ` ${name}` : ''}`);
  return found[0] as Record<string, any>;
}

const all = (kind: string): Record<string, any>[] =>
  objects.filter((object) => object.kind === kind) as Record<string, any>[];

const deployment = the('Deployment', 'topogate');
const podSpec = deployment.spec.template.spec;
const container = podSpec.containers[0];

describe('the set of manifests', () => {
  test('kustomization.yaml lists every file in manifests/, so `apply -k` and `topogate manifests` agree', async () => {
    // gate-plane/ and policyreport/ are opt-in, each with a kustomization of its own (`manifests --gate-plane`).
    const optIn = (file: string) => file.startsWith('gate-plane/') || file.startsWith('policyreport/');
    const files = (await readdir(manifestsDir, { recursive: true })).filter(
      (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml' && !optIn(file),
    );
    const listed = (
      parse(await readFile(new URL('kustomization.yaml', manifestsDir), 'utf8')) as { resources: string[] }
    ).resources;
    assert.deepEqual([...listed].sort(), files.sort());
  });

  test('holds exactly the objects of an install', () => {
    const kinds = objects.map((object) => `${object.kind}/${object.metadata?.name}`).sort();
    assert.deepEqual(kinds, [
      'ClusterRole/topogate',
      'ClusterRole/topogate-controlplane',
      'ClusterRole/topogate-policy-writer',
      'ClusterRole/topogate-probe',
      'ClusterRoleBinding/topogate',
      'ClusterRoleBinding/topogate-controlplane',
      'ClusterRoleBinding/topogate-policy-writer',
      'ClusterRoleBinding/topogate-probe',
      'ConfigMap/topogate-policies',
      'CustomResourceDefinition/controlplanes.topogate.dev',
      'CustomResourceDefinition/etcdclusters.topogate.dev',
      'CustomResourceDefinition/networktopologies.topogate.dev',
      'CustomResourceDefinition/schedulingpolicies.topogate.dev',
      'DaemonSet/topogate-probe',
      'Deployment/topogate',
      'MutatingWebhookConfiguration/topogate',
      'Namespace/topogate-system',
      'PodDisruptionBudget/topogate',
      'Role/topogate-control-plane',
      'Role/topogate-leader-leases',
      'Role/topogate-leases',
      'Role/topogate-policy-writer',
      'Role/topogate-probe',
      'RoleBinding/topogate-control-plane',
      'RoleBinding/topogate-leader-leases',
      'RoleBinding/topogate-leases',
      'RoleBinding/topogate-policy-writer',
      'RoleBinding/topogate-probe',
      'Service/topogate',
      'ServiceAccount/topogate',
      'ServiceAccount/topogate-probe',
    ]);
  });

  test('the Namespace comes first, so piping `topogate manifests` into kubectl apply works in one pass', () => {
    assert.equal(objects[0]?.kind, 'Namespace');
  });

  test('every namespaced object is in topogate-system, except the kube-system Roles (control-plane Pods, leader Leases)', () => {
    const kubeSystemRoles = new Set(['topogate-control-plane', 'topogate-leader-leases']);
    const controlPlaneRole = (object: (typeof objects)[number]) =>
      (object.kind === 'Role' || object.kind === 'RoleBinding') && kubeSystemRoles.has(object.metadata?.name ?? '');
    const clusterScoped = new Set([
      'Namespace',
      'CustomResourceDefinition',
      'ClusterRole',
      'ClusterRoleBinding',
      'MutatingWebhookConfiguration',
    ]);
    for (const object of objects) {
      const namespace = object.metadata?.namespace;
      if (clusterScoped.has(object.kind ?? '')) assert.equal(namespace, undefined, `${object.kind} is cluster-scoped`);
      else if (controlPlaneRole(object)) assert.equal(namespace, 'kube-system');
      else assert.equal(namespace, defaultNamespace, `${object.kind} ${object.metadata?.name}`);
    }
  });

  test('carries no secrets: no Secret objects and no certificate material', () => {
    assert.deepEqual(all('Secret'), []);
    const text = JSON.stringify(objects);
    assert.doesNotMatch(text, /BEGIN [A-Z ]*(PRIVATE KEY|CERTIFICATE)/);
    assert.doesNotMatch(text, /"caBundle"/);
  });
});

describe('RBAC: read-only, and only what the topology model watches', () => {
  const readOnly = ['get', 'list', 'watch'];
  // The probe's own roles (they write its Lease and NetworkTopology status) are checked in probe.test.ts.
  // The policy writer's roles (SchedulingPolicy status, PolicyReports, its Lease) are checked below, and
  // so are the control plane's (its own Leases, ControlPlane's status).
  const webhooks = (role: Record<string, any>) =>
    role.metadata.labels['app.kubernetes.io/name'] === 'topogate' &&
    role.metadata.labels['app.kubernetes.io/component'] !== 'policy-writer';
  const controlPlaneRoles = new Set(['topogate-controlplane', 'topogate-leases', 'topogate-leader-leases']);
  const rules = [...all('ClusterRole'), ...all('Role')]
    .filter((role) => webhooks(role) && !controlPlaneRoles.has(role.metadata.name))
    .flatMap((role) => role.rules.map((rule: Record<string, string[]>) => ({ role, rule })));

  test('every rule grants get, list and watch, nothing more, on named resources', () => {
    for (const { rule } of rules) {
      assert.deepEqual([...rule.verbs!].sort(), readOnly);
      for (const field of ['apiGroups', 'resources', 'verbs'])
        assert.ok(!rule[field]!.includes('*'), `no wildcard in ${field}`);
      assert.equal(rule.resourceNames, undefined);
      assert.equal(rule.nonResourceURLs, undefined);
    }
  });

  test('cluster-wide: exactly the sources of the topology model and the policies, and their CRDs', () => {
    const granted = the('ClusterRole', 'topogate').rules.flatMap((rule: Record<string, string[]>) =>
      rule.resources!.flatMap((resource) =>
        rule.apiGroups!.map((group) => (group === '' ? resource : `${resource}.${group}`)),
      ),
    );
    assert.deepEqual(granted.sort(), [
      'customresourcedefinitions.apiextensions.k8s.io',
      'endpointslices.discovery.k8s.io',
      'etcdclusters.topogate.dev',
      'namespaces',
      'networktopologies.topogate.dev',
      'noderesourcetopologies.topology.node.k8s.io',
      'nodes',
      'pods',
      'resourceslices.resource.k8s.io',
      'schedulingpolicies.topogate.dev',
    ]);
  });

  test('Pods only in kube-system, through a namespaced Role', () => {
    const role = the('Role', 'topogate-control-plane');
    assert.equal(role.metadata.namespace, 'kube-system');
    assert.deepEqual(role.rules, [{ apiGroups: [''], resources: ['pods'], verbs: readOnly }]);
  });

  test('nothing touches Secrets or ConfigMaps (the policy ConfigMap reaches the Pod as a volume)', () => {
    for (const { rule } of rules) {
      assert.ok(!rule.resources!.includes('secrets'));
      assert.ok(!rule.resources!.includes('configmaps'));
    }
  });

  test('measuring the control plane writes only its own Leases and ControlPlane, and reads two Leases by name', () => {
    assert.deepEqual(the('ClusterRole', 'topogate-controlplane').rules, [
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      { apiGroups: ['topogate.dev'], resources: ['controlplanes'], verbs: ['get', 'create'] },
      { apiGroups: ['topogate.dev'], resources: ['controlplanes/status'], verbs: ['update'] },
    ]);
    const leases = the('Role', 'topogate-leases');
    assert.equal(leases.metadata.namespace, defaultNamespace);
    assert.deepEqual(leases.rules, [
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      },
    ]);
    assert.deepEqual(the('Role', 'topogate-leader-leases').rules, [
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['kube-scheduler', 'kube-controller-manager'],
        verbs: ['get'],
      },
    ]);
  });

  test('each binding gives its role to the ServiceAccount the Deployment runs as, and nobody else', () => {
    const account = the('ServiceAccount', 'topogate');
    assert.equal(podSpec.serviceAccountName, account.metadata.name);
    const bindings = [
      { binding: the('ClusterRoleBinding', 'topogate'), role: the('ClusterRole', 'topogate') },
      { binding: the('RoleBinding', 'topogate-control-plane'), role: the('Role', 'topogate-control-plane') },
      {
        binding: the('ClusterRoleBinding', 'topogate-controlplane'),
        role: the('ClusterRole', 'topogate-controlplane'),
      },
      { binding: the('RoleBinding', 'topogate-leases'), role: the('Role', 'topogate-leases') },
      { binding: the('RoleBinding', 'topogate-leader-leases'), role: the('Role', 'topogate-leader-leases') },
    ];
    for (const { binding, role } of bindings) {
      assert.deepEqual(binding.roleRef, {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: role.kind,
        name: role.metadata.name,
      });
      assert.deepEqual(binding.subjects, [
        { kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace },
      ]);
    }
  });
});

describe('the Deployment: highly available and Pod Security restricted', () => {
  test('the Namespace enforces the restricted profile', () => {
    assert.equal(the('Namespace').metadata.labels['pod-security.kubernetes.io/enforce'], 'restricted');
  });

  test('restricted: non-root, no privilege escalation, all capabilities dropped, RuntimeDefault seccomp', () => {
    assert.equal(podSpec.securityContext.runAsNonRoot, true);
    assert.notEqual(podSpec.securityContext.runAsUser, 0);
    assert.equal(podSpec.securityContext.seccompProfile.type, 'RuntimeDefault');
    for (const key of ['hostNetwork', 'hostPID', 'hostIPC']) assert.notEqual(podSpec[key], true, key);
    for (const each of [...podSpec.containers, ...(podSpec.initContainers ?? [])]) {
      const context = each.securityContext;
      assert.equal(context.allowPrivilegeEscalation, false);
      assert.equal(context.readOnlyRootFilesystem, true);
      assert.equal(context.runAsNonRoot, true);
      assert.notEqual(context.privileged, true);
      assert.deepEqual(context.capabilities, { drop: ['ALL'] });
      assert.ok(!(each.ports ?? []).some((port: { hostPort?: number }) => port.hostPort !== undefined), 'no hostPort');
    }
  });

  test('volumes are of the kinds the restricted profile allows, and none is a hostPath', () => {
    const allowed = new Set([
      'configMap',
      'secret',
      'emptyDir',
      'projected',
      'downwardAPI',
      'persistentVolumeClaim',
      'csi',
      'ephemeral',
    ]);
    for (const volume of podSpec.volumes) {
      const kinds = Object.keys(volume).filter((key) => key !== 'name');
      assert.equal(kinds.length, 1);
      assert.ok(allowed.has(kinds[0]!), `${volume.name}: ${kinds[0]}`);
    }
  });

  test('requests and limits for cpu and memory, requests within limits', () => {
    for (const resource of ['cpu', 'memory']) {
      const request = parseQuantity(container.resources.requests[resource]);
      const limit = parseQuantity(container.resources.limits[resource]);
      assert.ok(
        request !== undefined && limit !== undefined && request > 0 && request <= limit,
        `${resource}: ${request} <= ${limit}`,
      );
    }
  });

  test('two replicas, rolled one at a time without losing one, spread over nodes (strictly) and zones', () => {
    assert.equal(deployment.spec.replicas, 2);
    assert.deepEqual(deployment.spec.strategy.rollingUpdate, { maxUnavailable: 0, maxSurge: 1 });
    const byKey = new Map(
      podSpec.topologySpreadConstraints.map((constraint: Record<string, unknown>) => [
        constraint.topologyKey,
        constraint,
      ]),
    );
    assert.equal((byKey.get('kubernetes.io/hostname') as Record<string, unknown>).whenUnsatisfiable, 'DoNotSchedule');
    assert.equal(
      (byKey.get('topology.kubernetes.io/zone') as Record<string, unknown>).whenUnsatisfiable,
      'ScheduleAnyway',
    );
    for (const constraint of podSpec.topologySpreadConstraints) {
      assert.deepEqual(constraint.labelSelector.matchLabels, deployment.spec.selector.matchLabels);
    }
  });

  test('the selector, the Pod labels, the Service and the PodDisruptionBudget agree', () => {
    const labels = deployment.spec.template.metadata.labels;
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    assert.ok(selects(deployment.spec.selector.matchLabels));
    assert.ok(selects(the('Service', 'topogate').spec.selector));
    const budget = the('PodDisruptionBudget', 'topogate');
    assert.ok(selects(budget.spec.selector.matchLabels));
    assert.equal(budget.spec.maxUnavailable, 1, 'one replica may go, never both');
  });

  test('probes: liveness on /healthz and readiness on /readyz, over HTTPS on the serving port', () => {
    const port = container.ports.find((each: { name: string }) => each.name === 'https');
    assert.equal(port.containerPort, 8443);
    assert.equal(the('Service', 'topogate').spec.ports[0].port, 443);
    assert.equal(the('Service', 'topogate').spec.ports[0].targetPort, 'https');
    for (const [probe, path] of [
      ['livenessProbe', '/healthz'],
      ['readinessProbe', '/readyz'],
      ['startupProbe', '/healthz'],
    ] as const) {
      assert.deepEqual(container[probe].httpGet, { path, port: 'https', scheme: 'HTTPS' }, probe);
    }
  });

  test('serves with --topology kube, the policies ConfigMap as its policy dir and the certificate Secret as its cert dir', () => {
    const args: string[] = container.args;
    const flag = (name: string) => args[args.indexOf(name) + 1];
    assert.equal(args[0], 'serve');
    assert.equal(flag('--topology'), 'kube');
    assert.equal(flag('--port'), String(container.ports[0].containerPort));
    const mountOf = (volumeName: string) =>
      container.volumeMounts.find((mount: { name: string }) => mount.name === volumeName);
    const volume = (predicate: (volume: Record<string, any>) => boolean) => podSpec.volumes.find(predicate);
    const policies = volume((each) => each.configMap?.name === the('ConfigMap', 'topogate-policies').metadata.name);
    assert.equal(flag('--policies'), mountOf(policies.name).mountPath);
    const certs = volume((each) => each.secret?.secretName === 'topogate-tls');
    assert.equal(flag('--cert-dir'), mountOf(certs.name).mountPath);
    assert.equal(certs.secret.defaultMode, 0o440, 'the key is readable by the Pod group only');
    for (const mount of container.volumeMounts) {
      if (mount.name !== volume((each) => each.emptyDir !== undefined).name)
        assert.equal(mount.readOnly, true, mount.mountPath);
    }
  });
});

describe('the MutatingWebhookConfiguration', () => {
  const configuration = the('MutatingWebhookConfiguration', 'topogate');
  const [webhook, claims, ...others] = configuration.webhooks;

  test('two webhooks: Pod CREATE, and claim CREATE for the dra rule; v1 and v1beta1 reviews, no side effects, reinvoked if needed', () => {
    assert.deepEqual(others, []);
    assert.deepEqual(webhook.rules, [
      { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Namespaced' },
    ]);
    assert.equal(claims.name, 'claims.topogate.dev');
    assert.deepEqual(claims.rules, [
      {
        apiGroups: ['resource.k8s.io'],
        apiVersions: ['v1'],
        operations: ['CREATE'],
        resources: ['resourceclaims', 'resourceclaimtemplates'],
        scope: 'Namespaced',
      },
    ]);
    // The same namespaces and failure policy as for Pods; no Pod-only match conditions.
    assert.deepEqual(claims.namespaceSelector, webhook.namespaceSelector);
    assert.deepEqual(claims.clientConfig, webhook.clientConfig);
    assert.equal(claims.failurePolicy, webhook.failurePolicy);
    assert.equal(claims.matchConditions, undefined);
    assert.deepEqual(webhook.admissionReviewVersions, ['v1', 'v1beta1']);
    assert.equal(webhook.sideEffects, 'None');
    assert.equal(webhook.reinvocationPolicy, 'IfNeeded');
  });

  test('fails open, and gives up quickly: a missing topogate never stops Pod creation for long', () => {
    assert.equal(webhook.failurePolicy, 'Ignore');
    assert.ok(webhook.timeoutSeconds >= 1 && webhook.timeoutSeconds <= 5, `timeoutSeconds ${webhook.timeoutSeconds}`);
  });

  test('calls the Service on its port and the /mutate path', () => {
    const service = the('Service', 'topogate');
    assert.deepEqual(webhook.clientConfig.service, {
      name: service.metadata.name,
      namespace: service.metadata.namespace,
      path: '/mutate',
      port: service.spec.ports[0].port,
    });
  });

  test('skips kube-system and its own namespace by name, so topogate can always start its own Pods', () => {
    const byName = webhook.namespaceSelector.matchExpressions.find(
      (expression: { key: string }) => expression.key === 'kubernetes.io/metadata.name',
    );
    assert.equal(byName.operator, 'NotIn');
    assert.ok(byName.values.includes('kube-system'));
    assert.ok(byName.values.includes(deployment.metadata.namespace));
  });

  test('skips namespaces and Pods labelled topogate.dev/skip=true', () => {
    const skip = { key: 'topogate.dev/skip', operator: 'NotIn', values: ['true'] };
    assert.ok(webhook.namespaceSelector.matchExpressions.some((expression: unknown) => isDeepEqual(expression, skip)));
    assert.deepEqual(webhook.objectSelector.matchExpressions, [skip]);
  });

  test('matchConditions skip Pods already bound to a node', () => {
    const expressions = webhook.matchConditions.map((condition: { expression: string }) => condition.expression);
    assert.ok(expressions.includes("!has(object.spec.nodeName) || object.spec.nodeName == ''"));
  });
});

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

describe('the CRDs', () => {
  const crds = all('CustomResourceDefinition');

  test('topogate.dev v1alpha1, cluster-scoped, with printer columns', () => {
    assert.equal(crds.length, 4);
    for (const crd of crds) {
      assert.equal(crd.spec.group, 'topogate.dev');
      assert.equal(crd.spec.scope, 'Cluster');
      assert.equal(crd.metadata.name, `${crd.spec.names.plural}.${crd.spec.group}`);
      const [version, ...more] = crd.spec.versions;
      assert.deepEqual(more, []);
      assert.equal(version.name, 'v1alpha1');
      assert.ok(version.served && version.storage);
      assert.ok(version.additionalPrinterColumns.length >= 2);
    }
  });

  test('a status subresource exactly where there is status', () => {
    for (const crd of crds) {
      const version = crd.spec.versions[0];
      const hasStatus = 'status' in version.schema.openAPIV3Schema.properties;
      assert.equal('status' in (version.subresources ?? {}), hasStatus, crd.metadata.name);
    }
    assert.deepEqual(
      crds
        .filter((crd) => crd.spec.versions[0].subresources?.status)
        .map((crd) => crd.spec.names.kind)
        .sort(),
      ['ControlPlane', 'EtcdCluster', 'NetworkTopology', 'SchedulingPolicy'],
    );
  });

  test('structural schemas: every node typed, no $ref or additionalProperties: false, every CEL rule explained', () => {
    for (const crd of crds) {
      for (const [path, node] of schemaNodes(crd.spec.versions[0].schema.openAPIV3Schema, crd.spec.names.kind)) {
        assert.equal(typeof node.type, 'string', `${path} has a type`);
        assert.equal(node.$ref, undefined, path);
        assert.notEqual(node.additionalProperties, false, path);
        for (const validation of node['x-kubernetes-validations'] ?? [])
          assert.ok(validation.message, `${path}: ${validation.rule}`);
      }
    }
  });
});

/** Every schema node with its path, walking properties, items and additionalProperties. */
function* schemaNodes(node: Record<string, any>, path: string): Generator<[string, Record<string, any>]> {
  yield [path, node];
  for (const [key, child] of Object.entries(node.properties ?? {}))
    yield* schemaNodes(child as Record<string, any>, `${path}.${key}`);
  if (node.items) yield* schemaNodes(node.items, `${path}[]`);
  if (typeof node.additionalProperties === 'object') yield* schemaNodes(node.additionalProperties, `${path}{}`);
}

test('the policy writer may write SchedulingPolicy status, PolicyReports and Leases in its namespace, nothing else', () => {
  const writes = [...all('ClusterRole'), ...all('Role')]
    .filter((role) => role.metadata.labels['app.kubernetes.io/component'] === 'policy-writer')
    .flatMap((role) =>
      role.rules.flatMap((rule: Record<string, string[]>) =>
        rule.resources!.flatMap((resource) =>
          rule.verbs!.filter((verb) => !['get', 'list', 'watch'].includes(verb)).map((verb) => `${verb} ${resource}`),
        ),
      ),
    );
  assert.deepEqual(writes.sort(), [
    'create leases',
    'create policyreports',
    'patch policyreports',
    'patch schedulingpolicies/status',
    'update leases',
  ]);
  assert.equal(the('Role', 'topogate-policy-writer').metadata.namespace, 'topogate-system');
});

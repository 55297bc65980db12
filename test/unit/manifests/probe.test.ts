// The probe DaemonSet and its RBAC: peers find each other by the port named
// `probe`, the agent knows its node from the downward API, and the roles grant
// exactly what docs/probe.md says it reads and writes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { manifestsDir, readManifests } from '../../../src/cli/manifests.ts';

const objects = (await readManifests(manifestsDir)) as Record<string, any>[];
const the = (kind: string, name: string) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata?.name === name);
  assert.equal(found.length, 1, `exactly one ${kind} ${name}`);
  return found[0]!;
};
const grants = (role: Record<string, any>) =>
  role.rules
    .flatMap((rule: Record<string, string[]>) =>
      rule.resources!.flatMap((resource) =>
        rule.apiGroups!.map((group) => `${group === '' ? resource : `${resource}.${group}`}: ${rule.verbs!.join(',')}`),
      ),
    )
    .sort();

describe('the probe DaemonSet', () => {
  const daemonSet = the('DaemonSet', 'topogate-probe');
  const spec = daemonSet.spec.template.spec;
  const [container] = spec.containers;

  test('its Pods carry the label the agents select peers by, and the port named probe', () => {
    assert.equal(daemonSet.spec.template.metadata.labels['app.kubernetes.io/name'], 'topogate-probe');
    assert.deepEqual(container.ports, [{ name: 'probe', containerPort: 9471, protocol: 'TCP' }]);
    assert.equal(container.livenessProbe.httpGet.port, 'probe');
  });

  test('NODE_NAME, the namespace and the Pod IP come from the downward API', () => {
    const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.valueFrom.fieldRef.fieldPath]));
    assert.deepEqual(env, { NODE_NAME: 'spec.nodeName', POD_NAMESPACE: 'metadata.namespace', POD_IP: 'status.podIP' });
    assert.deepEqual(container.args, ['probe', '--namespace=$(POD_NAMESPACE)', '--listen=$(POD_IP):9471']);
  });

  test('restricted: non-root, no host network, no escalation, all capabilities dropped', () => {
    assert.equal(spec.securityContext.runAsNonRoot, true);
    assert.notEqual(spec.hostNetwork, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'] });
    assert.equal(spec.serviceAccountName, 'topogate-probe');
  });
});

describe('the probe RBAC: exactly what it reads and writes', () => {
  test('cluster-wide: Nodes read, NetworkTopology created, its status written', () => {
    assert.deepEqual(grants(the('ClusterRole', 'topogate-probe')), [
      'networktopologies.topogate.dev: get,create',
      'networktopologies/status.topogate.dev: update',
      'nodes: get,list,watch',
    ]);
  });

  test('in its namespace: the probe Pods read, the Lease taken and renewed', () => {
    const role = the('Role', 'topogate-probe');
    assert.equal(role.metadata.namespace, 'topogate-system');
    assert.deepEqual(grants(role), ['leases.coordination.k8s.io: get,create,update', 'pods: get,list,watch']);
  });

  test('both bindings name the probe ServiceAccount only', () => {
    const account = the('ServiceAccount', 'topogate-probe');
    for (const binding of [the('ClusterRoleBinding', 'topogate-probe'), the('RoleBinding', 'topogate-probe')])
      assert.deepEqual(binding.subjects, [
        { kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace },
      ]);
  });
});

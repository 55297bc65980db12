// The Kueue TAS arm's pieces that need no cluster: which of Kueue's webhooks are registered and where they
// point, its Configuration, its queue objects, and what its /metrics say of admission.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kueueAdmission } from '../../../../bench/placement/kueue-admission.ts';
import { kueueQueueObjects } from '../../../../bench/placement/kueue-queue.ts';
import { RACK } from '../../../../bench/placement/fleet.ts';
import { parseQuantity } from '../../../../src/kube/quantity.ts';
import { kueueConfiguration, kueueWebhooks } from '../../../e2e/harness/kueue.ts';

// The shape of Kueue's config/components/webhook/manifests.yaml, three of its webhooks per kind.
const hook = (name: string, path: string, group: string, resource: string) => `- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: ${path}}
  failurePolicy: Fail
  name: ${name}
  rules:
  - apiGroups: ['${group}']
    apiVersions: [v1]
    operations: [CREATE]
    resources: [${resource}]
  sideEffects: None
`;
const manifest = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mutating-webhook-configuration}
webhooks:
${hook('mjob.kb.io', '/mutate-batch-v1-job', 'batch', 'jobs')}${hook('mpod.kb.io', '/mutate--v1-pod', '', 'pods')}${hook(
  'mworkload.kb.io',
  '/mutate-kueue-x-k8s-io-v1beta2-workload',
  'kueue.x-k8s.io',
  'workloads',
)}---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: validating-webhook-configuration}
webhooks:
${hook('vpod.kb.io', '/validate--v1-pod', '', 'pods')}${hook('vjob.kb.io', '/validate-batch-v1-job', 'batch', 'jobs')}`;

test("Kueue's own webhooks for Pods and its objects, by URL on loopback, the Pod ones for the managed namespace", () => {
  const [mutating, validating] = kueueWebhooks(manifest, 'https://127.0.0.1:9443', 'CA', ['fx-train']) as any[];
  assert.equal(mutating.kind, 'MutatingWebhookConfiguration');
  assert.deepEqual(
    mutating.webhooks.map((h: any) => [h.name, h.clientConfig.url]),
    [
      ['mpod.kb.io', 'https://127.0.0.1:9443/mutate--v1-pod'],
      ['mworkload.kb.io', 'https://127.0.0.1:9443/mutate-kueue-x-k8s-io-v1beta2-workload'],
    ],
  );
  assert.equal(mutating.webhooks[0].clientConfig.caBundle, Buffer.from('CA').toString('base64'));
  assert.equal(mutating.webhooks[0].failurePolicy, 'Fail', 'as Kueue ships it');
  assert.deepEqual(mutating.webhooks[0].namespaceSelector.matchExpressions[0].values, ['fx-train']);
  assert.equal(mutating.webhooks[1].namespaceSelector, undefined, 'Workloads wherever they are');
  assert.deepEqual(
    validating.webhooks.map((h: any) => h.name),
    ['vpod.kb.io'],
  );
  assert.notEqual(mutating.metadata.name, validating.metadata.name);
});

test('a webhook without a path is an error, not a registration that points nowhere', () => {
  const broken = manifest.replace('path: /mutate--v1-pod', 'port: 443');
  assert.throws(() => kueueWebhooks(broken, 'https://127.0.0.1:1', 'CA', ['ns']), /mpod\.kb\.io has no path/);
});

test('the Configuration: loopback ports, no leader election or internal certificates, Pods of one namespace', () => {
  const config = kueueConfiguration({
    ports: { webhook: 1, metrics: 2, health: 3 },
    certDir: '/certs',
    namespaces: ['fx-train'],
    featureGates: { TASBalancedPlacement: true },
  }) as any;
  assert.equal(config.apiVersion, 'config.kueue.x-k8s.io/v1beta2');
  assert.deepEqual(config.webhook, { host: '127.0.0.1', port: 1, certDir: '/certs' });
  assert.equal(config.metrics.bindAddress, '127.0.0.1:2');
  assert.equal(config.health.healthProbeBindAddress, '127.0.0.1:3');
  assert.deepEqual(config.internalCertManagement, { enable: false });
  assert.deepEqual(config.integrations.frameworks, ['pod']);
  assert.deepEqual(config.managedJobsNamespaceSelector.matchExpressions[0].values, ['fx-train']);
  assert.deepEqual(config.featureGates, { VisibilityOnDemand: false, TASBalancedPlacement: true });
});

test('the queue objects: a Topology down to the hostname, its flavor, an unlimited ClusterQueue, a LocalQueue', () => {
  const [topology, flavor, clusterQueue, localQueue] = kueueQueueObjects('fx-train') as any[];
  assert.deepEqual(
    topology.spec.levels.map((l: any) => l.nodeLabel),
    ['topology.kubernetes.io/zone', 'topogate.dev/block', RACK, 'kubernetes.io/hostname'],
  );
  assert.equal(flavor.spec.topologyName, topology.metadata.name);
  assert.equal(clusterQueue.spec.resourceGroups[0].flavors[0].name, flavor.metadata.name);
  assert.deepEqual(clusterQueue.spec.namespaceSelector, {}, 'every namespace may submit');
  for (const { nominalQuota } of clusterQueue.spec.resourceGroups[0].flavors[0].resources)
    assert.ok(parseQuantity(nominalQuota)! >= 1_000_000, `${nominalQuota}: more than the fabric has`);
  assert.deepEqual(localQueue.metadata, { name: 'fabric', namespace: 'fx-train' });
  assert.equal(localQueue.spec.clusterQueue, clusterQueue.metadata.name);
});

test("Kueue's admission from its metrics: attempts and their seconds, admitted workloads and their mean wait", () => {
  const metrics = [
    '# HELP kueue_admission_attempt_duration_seconds The latency of an admission attempt.',
    'kueue_admission_attempt_duration_seconds_bucket{replica_role="leader",result="success",le="+Inf"} 3',
    'kueue_admission_attempt_duration_seconds_sum{replica_role="leader",result="success"} 0.03',
    'kueue_admission_attempt_duration_seconds_count{replica_role="leader",result="success"} 3',
    'kueue_admission_attempt_duration_seconds_sum{replica_role="leader",result="inadmissible"} 0.01',
    'kueue_admission_attempt_duration_seconds_count{replica_role="leader",result="inadmissible"} 2',
    'kueue_admission_wait_time_seconds_sum{cluster_queue="fabric",priority_class="",replica_role="leader"} 4.5',
    'kueue_admission_wait_time_seconds_count{cluster_queue="fabric",priority_class="",replica_role="leader"} 3',
  ].join('\n');
  const admission = kueueAdmission(metrics);
  assert.equal(admission.attempts, 5);
  assert.ok(Math.abs(admission.attemptSeconds - 0.04) < 1e-9);
  assert.equal(admission.admitted, 3);
  assert.equal(admission.meanWaitSeconds, 1.5);
  assert.equal(kueueAdmission('').meanWaitSeconds, null, 'nothing admitted: no mean');
});

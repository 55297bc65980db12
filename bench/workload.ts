// What the benchmarks ask topogate to decide: realistic Pods (the first one
// is a ~10 KB Pod that a ReplicaSet controller would send, which the GPU
// policies mutate) and SchedulingPolicy sets of 1, 10 and 100 policies of
// which only the first few concern these Pods, as in a shared cluster.

import { SCHEDULING_POLICY } from '../src/api/v1alpha1/schedulingpolicy.ts';
import { HOSTNAME_LABEL, REGION_LABEL, ZONE_LABEL } from '../src/kube/labels.ts';
import type { KubeObject, Pod } from '../src/kube/types.ts';
import { serviceName } from './cluster.ts';

function env(prefix: string, count: number): { name: string; value: string }[] {
  return Array.from({ length: count }, (_, i) => ({ name: `${prefix}_${i}`, value: `value-${i}-${'x'.repeat(24)}` }));
}

function container(
  name: string,
  image: string,
  requests: Record<string, string>,
  limits: Record<string, string>,
  envCount: number,
) {
  return {
    name,
    image,
    imagePullPolicy: 'IfNotPresent',
    args: ['--config=/etc/app/config.yaml', '--log-level=info', `--metrics-port=${9090 + envCount}`],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
      { name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
      ...env(name.toUpperCase().replaceAll('-', '_'), envCount),
    ],
    ports: [
      { containerPort: 8080, name: 'http', protocol: 'TCP' },
      { containerPort: 9090, name: 'metrics', protocol: 'TCP' },
    ],
    resources: { requests, limits },
    readinessProbe: {
      httpGet: { path: '/readyz', port: 8080, scheme: 'HTTP' },
      periodSeconds: 10,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    },
    livenessProbe: {
      httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' },
      initialDelaySeconds: 30,
      periodSeconds: 10,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    },
    securityContext: {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
      runAsUser: 1000,
    },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    volumeMounts: [
      { mountPath: '/etc/app', name: 'config', readOnly: true },
      { mountPath: '/data', name: 'data' },
      { mountPath: '/dev/shm', name: 'dshm' },
      { mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: 'kube-api-access-7xk2p', readOnly: true },
    ],
  };
}

function pod(name: string, namespace: string, labels: Record<string, string>, spec: Record<string, unknown>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${name}-7d9f8b6c4-`,
      namespace,
      labels: { ...labels, 'pod-template-hash': '7d9f8b6c4' },
      annotations: {
        'kubectl.kubernetes.io/default-container': Object.values(labels)[0] ?? name,
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
        'checksum/config': 'f3b1c2d4e5a6978877665544332211ffeeddccbbaa99887766554433221100aa',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${name}-7d9f8b6c4`,
          uid: '5f0c8f2e-3b9a-4c1d-9e8f-7a6b5c4d3e2f',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: name,
      serviceAccount: name,
      securityContext: { fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      volumes: [
        { name: 'config', configMap: { name: `${name}-config`, defaultMode: 420 } },
        { name: 'data', emptyDir: {} },
        { name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '8Gi' } },
        {
          name: 'kube-api-access-7xk2p',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              {
                downwardAPI: {
                  items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
                },
              },
            ],
          },
        },
      ],
      ...spec,
    },
  };
}

/** The ~10 KB Pod of the HTTP benchmarks: a Guaranteed GPU trainer, mutated by the GPU, NUMA, latency and spread policies. */
export function trainerPod(): Pod {
  const labels = { 'app.kubernetes.io/name': 'trainer', 'app.kubernetes.io/instance': 'llm-finetune', app: 'trainer' };
  const trainer = pod('trainer', 'ml-training', labels, {
    initContainers: [
      container(
        'fetch-weights',
        'registry.example.com/ml/fetcher:2.4.1',
        { cpu: '2', memory: '4Gi' },
        { cpu: '2', memory: '4Gi' },
        6,
      ),
    ],
    containers: [
      container(
        'trainer',
        'registry.example.com/ml/trainer:2025.11.3-cuda12.6',
        { cpu: '16', memory: '128Gi', 'nvidia.com/gpu': '2' },
        { cpu: '16', memory: '128Gi', 'nvidia.com/gpu': '2' },
        40,
      ),
      container(
        'metrics-exporter',
        'registry.example.com/observability/dcgm-exporter:3.3.9',
        { cpu: '500m', memory: '512Mi' },
        { cpu: '500m', memory: '512Mi' },
        8,
      ),
    ],
  });
  trainer.spec!.tolerations!.push({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' });
  return trainer;
}

/** Pods cycled through by the in-process decision benchmark: each meets different policies. */
export function decisionPods(): { pod: Pod; namespace: string }[] {
  const web = pod(
    'storefront',
    'web',
    { 'app.kubernetes.io/name': 'storefront', app: 'storefront' },
    {
      containers: [
        container(
          'storefront',
          'registry.example.com/web/storefront:5.2.0',
          { cpu: '500m', memory: '1Gi' },
          { memory: '2Gi' },
          12,
        ),
      ],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] },
            ],
          },
        },
      },
    },
  );
  const ledger = pod(
    'ledger',
    'payments',
    { 'app.kubernetes.io/name': 'ledger', app: 'ledger' },
    {
      containers: [
        container(
          'ledger',
          'registry.example.com/payments/ledger:1.19.0',
          { cpu: '4', memory: '8Gi' },
          { cpu: '4', memory: '8Gi' },
          10,
        ),
      ],
    },
  );
  const batch = pod(
    'report',
    'batch',
    { app: 'report' },
    {
      containers: [container('report', 'registry.example.com/data/report:0.9.2', {}, {}, 4)],
    },
  );
  return [
    { pod: trainerPod(), namespace: 'ml-training' },
    { pod: web, namespace: 'web' },
    { pod: ledger, namespace: 'payments' },
    { pod: batch, namespace: 'batch' },
  ];
}

export function admissionReview(pod: Pod, namespace: string, uid = '705ab4f5-6393-11e8-b7cc-42010a800002'): object {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      namespace,
      operation: 'CREATE',
      userInfo: {
        username: 'system:serviceaccount:kube-system:replicaset-controller',
        uid: 'a7f8c1d2-0e9b-4c3a-8d7e-6f5a4b3c2d1e',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
      },
      object: pod,
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  };
}

/** Policy i of a set: the first eight cover every rule kind for the decision Pods; the rest belong to other teams. */
export function policy(index: number): KubeObject {
  const ours = index < 8;
  const team = `team-${index % 40}`;
  const namespaces = (wanted: string[]) => (ours ? wanted : [`${team}`, `${team}-*`]);
  const specs: Record<string, unknown>[] = [
    {
      priority: 100,
      match: { namespaces: namespaces(['ml-*']), excludeNamespaces: ['ml-sandbox'], resources: ['nvidia.com/gpu'] },
      rules: {
        gpu: { products: ['NVIDIA-H100*', 'NVIDIA-A100*'], minMemoryMiB: 40000, mode: 'Required' },
        nodeLabels: {
          required: [],
          preferred: [{ weight: 20, requirements: [{ key: 'disk', operator: 'In', values: ['nvme'] }] }],
        },
      },
    },
    {
      priority: 90,
      match: { namespaces: namespaces(['ml-*', 'payments']), qosClasses: ['Guaranteed'] },
      rules: { numa: { policy: 'SingleNUMANode', mode: 'Preferred', maxCandidates: 16 } },
    },
    {
      priority: 80,
      match: { namespaceSelector: { matchLabels: { team: ours ? 'ml' : team } } },
      rules: { latency: { to: { zone: 'us-east-1a' }, maxRttMs: 2, mode: 'Required' } },
    },
    {
      priority: 70,
      match: { namespaces: namespaces(['payments']) },
      rules: { latency: { to: { etcdLeader: true }, maxRttMs: 1.5, mode: 'Preferred' } },
    },
    {
      priority: 60,
      match: {
        namespaces: namespaces(['web']),
        podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['storefront', 'checkout'] }] },
      },
      rules: { latency: { to: { service: `payments/${serviceName(0)}` }, maxRttMs: 2, mode: 'Preferred' } },
    },
    {
      priority: 50,
      match: { namespaces: namespaces(['*']), excludeNamespaces: ['kube-system'] },
      rules: {
        spread: [
          {
            topologyKey: ZONE_LABEL,
            maxSkew: 1,
            whenUnsatisfiable: 'ScheduleAnyway',
            matchLabelKeys: ['pod-template-hash'],
          },
        ],
      },
    },
    {
      priority: 40,
      match: { namespaces: namespaces(['web', 'payments']), qosClasses: ['Burstable', 'Guaranteed'] },
      rules: { spread: [{ topologyKey: HOSTNAME_LABEL, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
    },
    {
      priority: 30,
      match: { namespaces: namespaces(['batch']), qosClasses: ['BestEffort'] },
      rules: {
        nodeLabels: {
          required: [
            {
              key: 'node.kubernetes.io/instance-type',
              operator: 'In',
              values: ['m6i.4xlarge', 'c6i.8xlarge', 'r6i.4xlarge'],
            },
          ],
          preferred: [
            {
              weight: 50,
              requirements: [{ key: REGION_LABEL, operator: 'In', values: ['us-west-2'] }],
            },
          ],
        },
      },
    },
  ];
  return {
    apiVersion: SCHEDULING_POLICY.apiVersion,
    kind: SCHEDULING_POLICY.kind,
    metadata: { name: ours ? `platform-${index}` : `${team}-policy-${index}` },
    spec: { onUnsatisfiable: 'Warn', ...specs[index % specs.length] },
  };
}

export function policies(count: number): KubeObject[] {
  return Array.from({ length: count }, (_, index) => policy(index));
}

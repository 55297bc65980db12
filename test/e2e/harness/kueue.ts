// Kueue's manager as an admin runs it outside the cluster: its CRDs and its
// webhooks' paths read from the pinned module, a Configuration with the pod
// integration only, serving certificates of our own (no internal certificate
// management), webhooks registered by URL on loopback.

import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { ensureKueue, kueueModule } from './build.ts';
import type { ClusterState } from './cluster.ts';
import { kubectl, kubectlOk } from './kube.ts';
import { createLoopbackServing } from './pki.ts';
import { freePorts } from './ports.ts';
import { disown, own } from './process.ts';
import { applyAll } from './topogate.ts';
import { httpsGet, waitFor } from './wait.ts';

export const KUEUE_NAMESPACE = 'kueue-system';
const WEBHOOKS = { mutating: 'kueue-mutating', validating: 'kueue-validating' } as const;
const METRICS_READER = 'kueue-metrics-reader';

export interface KueueOptions {
  readonly cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig' | 'dir'>;
  /** The namespaces whose Pods Kueue manages (its managedJobsNamespaceSelector and its Pod webhooks'). */
  readonly namespaces: readonly string[];
  /** Kueue's own gates, e.g. `{ TASBalancedPlacement: true }`. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
}

export interface Kueue {
  /** Kueue's /metrics (Prometheus text), read with a service account token as its authorization filter wants. */
  metrics(): Promise<string>;
  /** The end of what the manager wrote (all of it is in <cluster dir>/kueue/kueue.log). */
  readonly output: () => string;
  /** Removes its webhook configurations, then SIGTERM (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** The folder of the pinned Kueue module (downloaded if it is not yet): its CRDs and webhook manifests. */
export function kueueSources(): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' };
    execFile(
      'go',
      ['list', '-m', '-json', kueueModule.requires],
      { cwd: kueueModule.dir, env, timeout: 300_000 },
      (error, stdout) => {
        if (error) return reject(new Error(`go list -m ${kueueModule.requires}: ${error.message}`));
        const dir = (JSON.parse(stdout) as { Dir?: string }).Dir;
        if (!dir) return reject(new Error(`go list -m ${kueueModule.requires}: no Dir (not downloaded)`));
        resolve(dir);
      },
    );
  });
}

type Webhook = {
  rules?: { apiGroups?: string[]; resources?: string[] }[];
  clientConfig?: { service?: { path?: string } };
} & Record<string, unknown>;

/**
 * Kueue's own webhook configurations (config/components/webhook/manifests.yaml), kept to what the pod
 * integration and Kueue's objects need, each called at `url` + its path; the Pod webhooks only in `namespaces`.
 */
export function kueueWebhooks(manifest: string, url: string, caPem: string, namespaces: readonly string[]): object[] {
  const caBundle = Buffer.from(caPem).toString('base64');
  const wanted = (hook: Webhook) =>
    (hook.rules ?? []).some((r) => r.resources?.includes('pods') || r.apiGroups?.includes('kueue.x-k8s.io'));
  return parseAllDocuments(manifest).map((doc) => {
    const config = doc.toJS() as { kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration' };
    const hooks = ((config as { webhooks?: Webhook[] }).webhooks ?? []).filter(wanted);
    if (hooks.length === 0) throw new Error(`no Kueue webhook for Pods in ${config.kind}`);
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: config.kind,
      metadata: { name: config.kind === 'MutatingWebhookConfiguration' ? WEBHOOKS.mutating : WEBHOOKS.validating },
      webhooks: hooks.map((hook) => {
        const path = hook.clientConfig?.service?.path;
        if (!path) throw new Error(`Kueue webhook ${String(hook['name'])} has no path`);
        const pods = hook.rules?.some((r) => r.resources?.includes('pods'));
        return {
          ...hook,
          clientConfig: { url: `${url}${path}`, caBundle },
          ...(pods
            ? {
                namespaceSelector: {
                  matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...namespaces] }],
                },
              }
            : {}),
        };
      }),
    };
  });
}

/** Kueue's Configuration for a manager out of cluster, on loopback ports, managing `namespaces` only. */
export function kueueConfiguration(options: {
  readonly ports: { readonly webhook: number; readonly metrics: number; readonly health: number };
  readonly certDir: string;
  readonly namespaces: readonly string[];
  readonly featureGates: Readonly<Record<string, boolean>>;
}): object {
  return {
    apiVersion: 'config.kueue.x-k8s.io/v1beta2',
    kind: 'Configuration',
    namespace: KUEUE_NAMESPACE,
    health: { healthProbeBindAddress: `127.0.0.1:${options.ports.health}` },
    metrics: { bindAddress: `127.0.0.1:${options.ports.metrics}` },
    webhook: { host: '127.0.0.1', port: options.ports.webhook, certDir: options.certDir },
    // One manager: nothing to elect.
    leaderElection: { leaderElect: false },
    internalCertManagement: { enable: false },
    managedJobsNamespaceSelector: {
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...options.namespaces] }],
    },
    integrations: { frameworks: ['pod'] },
    // The visibility API is an aggregated API server of its own, which needs a Service in the cluster.
    featureGates: { VisibilityOnDemand: false, ...options.featureGates },
  };
}

export async function startKueue(options: KueueOptions): Promise<Kueue> {
  const { cluster } = options;
  const [bin, sources] = await Promise.all([ensureKueue(), kueueSources()]);
  const dir = join(cluster.dir, 'kueue');
  const certDir = join(dir, 'certs');
  // Out of cluster without internal certificates, the manager reads its metrics certificate from a fixed
  // /etc/kueue/metrics/certs: an overlay on /etc, in a mount namespace of its own, puts it there.
  const upper = join(dir, 'etc');
  const metricsCerts = join(upper, 'kueue', 'metrics', 'certs');
  for (const d of [certDir, metricsCerts, join(dir, 'etc-work')]) mkdirSync(d, { recursive: true });
  const { ca, serving } = createLoopbackServing('kueue-webhook');
  for (const d of [certDir, metricsCerts]) {
    writeFileSync(join(d, 'tls.crt'), serving.certPem);
    writeFileSync(join(d, 'tls.key'), serving.keyPem, { mode: 0o600 });
  }
  const [webhook, metrics, health] = await freePorts(3);
  const ports = { webhook: webhook!, metrics: metrics!, health: health! };
  const config = join(dir, 'config.yaml');
  const featureGates = options.featureGates ?? {};
  writeFileSync(
    config,
    stringify(kueueConfiguration({ ports, certDir, namespaces: options.namespaces, featureGates })),
  );

  await installKueueCrds(cluster, join(sources, 'config', 'components', 'crd', 'bases'));
  await applyAll(cluster, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: KUEUE_NAMESPACE } }]);

  const logFile = join(dir, 'kueue.log');
  let output = '';
  const script = 'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc && exec "$3" --config "$4"';
  const child: ChildProcess = spawn(
    'unshare',
    ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', upper, join(dir, 'etc-work'), bin, config],
    { env: { ...process.env, KUBECONFIG: cluster.kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (child.pid !== undefined) own(child.pid);
  const collect = (chunk: Buffer) => {
    output = `${output}${chunk.toString()}`.slice(-64 * 1024);
    appendFileSync(logFile, chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const stop = async () => {
    await kubectl(cluster, ['delete', 'mutatingwebhookconfiguration', WEBHOOKS.mutating, '--ignore-not-found']);
    await kubectl(cluster, ['delete', 'validatingwebhookconfiguration', WEBHOOKS.validating, '--ignore-not-found']);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    if (child.pid !== undefined) disown(child.pid);
  };
  try {
    // readyz answers once the webhook server listens: from then on the webhooks can be registered.
    await waitFor(async () => (await fetch(`http://127.0.0.1:${ports.health}/readyz`)).status === 200, {
      what: 'the Kueue manager',
      timeoutMs: 120_000,
      intervalMs: 500,
      abortIf: () => (child.exitCode === null ? undefined : `exited ${child.exitCode}:\n${output.slice(-4000)}`),
    });
    const manifest = readFileSync(join(sources, 'config', 'components', 'webhook', 'manifests.yaml'), 'utf8');
    await applyAll(
      cluster,
      kueueWebhooks(manifest, `https://127.0.0.1:${ports.webhook}`, ca.certPem, options.namespaces),
    );
    const token = await metricsToken(cluster);
    return {
      output: () => output,
      stop,
      async metrics() {
        const url = `https://127.0.0.1:${ports.metrics}/metrics`;
        const answer = await httpsGet(url, { ca: ca.certPem }, 10_000, { authorization: `Bearer ${token}` });
        if (answer.status !== 200)
          throw new Error(`Kueue /metrics: HTTP ${answer.status}: ${answer.body.slice(0, 200)}`);
        return answer.body;
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Kueue's CRDs, server-side (the Workload CRD is too large for the last-applied annotation), established. */
async function installKueueCrds(cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>, bases: string): Promise<void> {
  await kubectlOk(cluster, ['apply', '--server-side', '--force-conflicts', '-f', bases]);
  // kueue.x-k8s.io_workloads.yaml holds crd/workloads.kueue.x-k8s.io.
  const crds = readdirSync(bases)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => {
      const [group, plural] = file.replace(/\.yaml$/, '').split('_');
      return `crd/${plural}.${group}`;
    });
  const wait = ['wait', '--for=condition=Established', '--timeout=30s', ...crds];
  // A CRD read before its status is first written has no conditions, which kubectl wait takes as an error.
  await waitFor(async () => (await kubectl(cluster, wait)).code === 0, {
    what: "Kueue's CRDs established",
    timeoutMs: 90_000,
    intervalMs: 1_000,
  });
}

/** A service account allowed GET /metrics, and a token of it: the metrics endpoint authenticates by TokenReview. */
async function metricsToken(cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>): Promise<string> {
  await applyAll(cluster, [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: METRICS_READER, namespace: KUEUE_NAMESPACE } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: METRICS_READER },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: METRICS_READER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: METRICS_READER },
      subjects: [{ kind: 'ServiceAccount', name: METRICS_READER, namespace: KUEUE_NAMESPACE }],
    },
  ]);
  return (await kubectlOk(cluster, ['create', 'token', METRICS_READER, '-n', KUEUE_NAMESPACE])).trim();
}

/**
 * With the manager stopped, its finalizers on the Pods and Workloads of `namespace` would keep them
 * forever: take them off (Topology, flavor and queues stay; nothing reads them once Kueue is gone).
 */
export async function releaseKueueFinalizers(
  cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>,
  namespace: string,
): Promise<void> {
  for (const kind of ['pods', 'workloads.kueue.x-k8s.io'])
    await waitFor(
      async () => {
        const list = JSON.parse(await kubectlOk(cluster, ['get', kind, '-n', namespace, '-o', 'json'])) as {
          items: { metadata: { finalizers?: string[] } }[];
        };
        const held = list.items.filter((item) => (item.metadata.finalizers?.length ?? 0) > 0);
        if (held.length === 0) return true;
        for (const item of held) item.metadata.finalizers = [];
        // A conflict (the object changed since the read) fails the whole replace: read again.
        return (await kubectl(cluster, ['replace', '-f', '-'], JSON.stringify({ ...list, items: held }))).code === 0;
      },
      { what: `Kueue's finalizers off the ${kind} of ${namespace}`, timeoutMs: 60_000, intervalMs: 1_000 },
    );
}

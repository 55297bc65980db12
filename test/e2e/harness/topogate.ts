// topogate as an admin runs it outside the cluster: `topogate certs
// --localhost`, then `topogate serve --topology kube` on a loopback port,
// registered through the MutatingWebhookConfiguration that `topogate
// manifests --url` prints.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ClusterState } from './cluster.ts';
import { kubectl, kubectlOk } from './kube.ts';
import { freePort } from './ports.ts';
import { disown, own } from './process.ts';
import { repoRoot } from './versions.ts';
import { httpsGet, waitFor } from './wait.ts';

const bin = join(repoRoot, 'bin', 'topogate.ts');

/** Runs `topogate <args>` to completion; rejects with its stderr on a non-zero exit. */
export function topogateCli(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`topogate ${args.join(' ')} exited ${code}: ${stderr.trim()}`)),
    );
  });
}

export interface TopogateOptions {
  readonly cluster: Pick<ClusterState, 'kubeconfig' | 'dir'> & Partial<Pick<ClusterState, 'kubectl'>>;
  readonly policies: string;
  /** etcd members' metrics URLs (`--etcd-metrics`), for the etcd leader. */
  readonly etcdMetrics?: readonly string[];
  /** The port to serve on (default: a free one), for a caller that must know it before topogate starts. */
  readonly port?: number;
  /** More `serve` flags, e.g. `--client-ca FILE`. */
  readonly serveArgs?: readonly string[];
}

export interface Topogate {
  readonly url: string;
  readonly certDir: string;
  readonly caPem: string;
  /** The end of what the process wrote (all of it is in <cluster dir>/topogate.log). */
  readonly output: () => string;
  start(): Promise<void>;
  /** SIGTERM (a graceful stop) by default; SIGKILL for a crash. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** `topogate certs` for the Service topogate-system/topogate and localhost, written to `out`. */
export async function issueServingCertificate(out: string): Promise<void> {
  await topogateCli(['certs', '--service', 'topogate', '--namespace', 'topogate-system', '--localhost', '--out', out]);
}

export async function startTopogate(options: TopogateOptions): Promise<Topogate> {
  const certDir = join(options.cluster.dir, 'topogate-certs');
  mkdirSync(certDir, { recursive: true });
  await issueServingCertificate(certDir);
  const caPem = readFileSync(join(certDir, 'ca.crt'), 'utf8');
  // serve keeps its Leases in --lease-namespace, topogate-system outside a cluster, as the chart's namespace.
  // A caller with a kubeconfig of its own (no kubectl here) sets up the namespaces it needs itself.
  const { kubectl, kubeconfig } = options.cluster;
  if (kubectl)
    await applyAll({ kubectl, kubeconfig }, [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'topogate-system' } },
    ]);
  // Beside the control plane's logs, so TOPOGATE_E2E_KEEP=1 keeps it too.
  const logFile = join(options.cluster.dir, 'topogate.log');
  const port = options.port ?? (await freePort());
  const url = `https://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let output = '';
  const args = [
    bin,
    'serve',
    '--topology',
    'kube',
    '--kubeconfig',
    options.cluster.kubeconfig,
    '--policies',
    options.policies,
    '--cert-dir',
    certDir,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    // The default 5 ms budget is for a webhook with a core of its own; here the API server, etcd,
    // the scheduler and kubectl share two cores with it, and a late answer would admit Pods unmutated.
    '--budget-ms',
    '500',
    ...(options.etcdMetrics ?? []).flatMap((url) => ['--etcd-metrics', url]),
    ...(options.serveArgs ?? []),
  ];
  const topogate: Topogate = {
    url,
    certDir,
    caPem,
    output: () => output,
    async start() {
      const started = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      if (started.pid !== undefined) own(started.pid);
      const collect = (chunk: Buffer) => {
        output = `${output}${chunk.toString()}`.slice(-64 * 1024);
        appendFileSync(logFile, chunk);
      };
      started.stdout?.on('data', collect);
      started.stderr?.on('data', collect);
      await waitFor(async () => (await httpsGet(`${url}/readyz`, { ca: caPem })).status === 200, {
        what: 'topogate serve',
        timeoutMs: 60_000,
        abortIf: () => (started.exitCode === null ? undefined : `exited ${started.exitCode}:\n${output.slice(-4000)}`),
      });
    },
    async stop(signal = 'SIGTERM') {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill(signal);
      const timer = setTimeout(() => running.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      if (running.pid !== undefined) disown(running.pid);
    },
  };
  await topogate.start();
  return topogate;
}

export type Manifest = { kind?: string; metadata?: { name?: string } } & Record<string, unknown>;

async function manifests(args: readonly string[]): Promise<Manifest[]> {
  return parseAllDocuments(await topogateCli(['manifests', ...args])).map((doc) => doc.toJS() as Manifest);
}

/** As JSON documents: kubectl reads YAML 1.1, where a plain `yes` written by a YAML 1.2 printer is a boolean. */
export async function applyAll(
  cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>,
  objects: readonly object[],
): Promise<void> {
  await kubectlOk(cluster, ['apply', '-f', '-'], objects.map((o) => `---\n${JSON.stringify(o)}\n`).join(''));
}

/** The CRDs of manifests/ (SchedulingPolicy, NetworkTopology, EtcdCluster), applied and established. */
export async function installTopogateCrds(cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>): Promise<void> {
  const crds = (await manifests([])).filter((o) => o.kind === 'CustomResourceDefinition');
  await applyAll(cluster, crds);
  const wait = [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    ...crds.map((crd) => `crd/${crd.metadata?.name}`),
  ];
  // A CRD read before the API server first writes its status has no conditions, which kubectl wait
  // reports as an error rather than waiting on: ask again a few times.
  for (let attempt = 1; ; attempt++) {
    const result = await kubectl(cluster, wait);
    if (result.code === 0) return;
    if (attempt === 5 || !/status\.conditions accessor error/.test(result.stderr)) {
      throw new Error(`kubectl ${wait.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The MutatingWebhookConfiguration of manifests/, pointed at topogate's URL with its CA, applied as shipped. */
export async function registerWebhook(
  cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>,
  topogate: Topogate,
): Promise<Manifest> {
  const objects = await manifests(['--ca', join(topogate.certDir, 'ca.crt'), '--url', `${topogate.url}/mutate`]);
  const webhook = objects.find((o) => o.kind === 'MutatingWebhookConfiguration');
  if (!webhook) throw new Error('topogate manifests printed no MutatingWebhookConfiguration');
  await applyAll(cluster, [webhook]);
  return webhook;
}

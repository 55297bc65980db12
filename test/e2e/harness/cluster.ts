// A real control plane on loopback: etcd (1 or 3 members), kube-apiserver,
// kube-scheduler and kube-controller-manager, each a detached process with its
// log in the cluster's temp dir. `startCluster` is what tests and `cluster up` use; `attachCluster`
// takes over one from its saved state (for `cluster down`).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBinaries, ensureNodeBinaries } from './build.ts';
import type { Delayer } from './delay.ts';
import { startDelayer } from './delay.ts';
import { createNetwork, destroyNetwork, destroyNetworkSync, sh } from './netns.ts';
import { ensureNodeImages } from './nodeimages.ts';
import { network } from './nodeplan.ts';
import type { NodesState } from './nodes.ts';
import { importImage, nodeLogs, prepareNodes, startNode, stopNode, stopNodeSync, waitContainerd } from './nodes.ts';
import type { Binaries, NodeBinaries } from './versions.ts';
import type { EtcdMember } from './components.ts';
import {
  apiServerComponent,
  controllerManagerComponent,
  etcdComponent,
  etcdMembers,
  schedulerComponent,
} from './components.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { createClusterPki } from './pki.ts';
import { freePorts } from './ports.ts';
import type { Component } from './process.ts';
import {
  disown,
  disownCleanup,
  disownDir,
  isAlive,
  logTail,
  own,
  ownCleanup,
  ownDir,
  runs,
  startDetached,
  stopProcess,
} from './process.ts';
import type { TlsClient } from './wait.ts';
import { httpsGet, waitFor } from './wait.ts';

export interface ClusterOptions {
  /** 1 (default) or 3 etcd members. */
  readonly etcdMembers?: 1 | 3;
  /** Leave the processes running when this process exits (`cluster up`). */
  readonly detach?: boolean;
  /** Where build progress goes. */
  readonly progress?: NodeJS.WritableStream;
  /** Let etcd fsync its WAL as in production (default off: the data is thrown away); for tests that read fsync figures. */
  readonly etcdFsync?: boolean;
  /** More kube-apiserver flags, e.g. `--admission-control-config-file=…`. */
  readonly apiServerArgs?: readonly string[];
  /** Real nodes (node-1…node-N, kubelets in their own network namespaces); 0 (default) runs none. */
  readonly nodes?: number;
  /** More kube-scheduler flags, e.g. `--feature-gates=…`. */
  readonly schedulerArgs?: readonly string[];
  /** More kube-controller-manager flags, e.g. `--kube-api-qps=…`. */
  readonly controllerManagerArgs?: readonly string[];
}

export interface RunningComponent extends Component {
  pid: number;
}

/** Everything needed to find and stop a cluster from another process. */
export interface ClusterState {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly server: string;
  readonly kubectl: string;
  readonly etcd: readonly EtcdMember[];
  readonly admin: Required<Pick<TlsClient, 'ca' | 'cert' | 'key'>>;
  readonly schedulerPort: number;
  readonly controllerManagerPort: number;
  readonly components: readonly RunningComponent[];
  /** The real nodes and the delayer between their zones, when the cluster has nodes. */
  readonly nodes?: RealNodes;
}

export interface RealNodes extends NodesState {
  readonly delayer: Delayer;
}

export interface Cluster extends ClusterState {
  readonly etcdMetricsUrls: readonly string[];
  /** Stops every process and removes the temp dir (set TOPOGATE_E2E_KEEP=1 to keep it for its logs). */
  stop(): Promise<void>;
  /** Stops kube-apiserver and starts it again on the same port and storage; resolves once it is ready. */
  restartApiServer(): Promise<void>;
  stopEtcdMember(index: number): Promise<void>;
  /** Starts a stopped member again; resolves once it is healthy (unless wait is false). */
  startEtcdMember(index: number, options?: { wait?: boolean }): Promise<void>;
  /** GET on the API server as the admin, e.g. `/metrics`. */
  get(path: string): Promise<{ status: number; body: string }>;
}

const readyTimeoutMs = {
  etcd: 60_000,
  apiServer: 120_000,
  scheduler: 60_000,
  controllerManager: 90_000,
  nodes: 180_000,
};

/** The clean-up of a test's nodes if its process exits before stop(): synchronous, as exit handlers must be. */
const abandoners = new Map<RealNodes, () => void>();

function abandonNodes(nodes: RealNodes): () => void {
  const abandon = () => {
    for (const node of nodes.nodes) stopNodeSync(node);
    if (nodes.delayer.pid && isAlive(nodes.delayer.pid)) process.kill(nodes.delayer.pid, 'SIGKILL');
    destroyNetworkSync();
  };
  abandoners.set(nodes, abandon);
  return abandon;
}

/** Every node's processes, the delayer, then the network; each step runs whatever failed before it. */
async function stopNodes(nodes: RealNodes): Promise<void> {
  for (const node of nodes.nodes) await stopNode(node);
  if (nodes.delayer.pid && isAlive(nodes.delayer.pid)) await stopProcess(nodes.delayer.pid, 2_000);
  await destroyNetwork();
  const abandon = abandoners.get(nodes);
  if (abandon) disownCleanup(abandon);
  abandoners.delete(nodes);
}

interface NodeInputs {
  readonly bins: NodeBinaries;
  readonly images: { readonly pause: string; readonly web: string };
  readonly runc: string;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const bins = await ensureBinaries({ progress: options.progress });
  const nodeInputs = (options.nodes ?? 0) > 0 ? await nodeBuild(options) : undefined;
  try {
    return await startOnce(bins, options, nodeInputs);
  } catch (error) {
    // A free port is free only until someone else's cluster, started at the same time, takes it.
    if (!/address already in use/.test(String(error))) throw error;
    return startOnce(bins, options, nodeInputs);
  }
}

async function nodeBuild(options: ClusterOptions): Promise<NodeInputs> {
  const bins = await ensureNodeBinaries({ progress: options.progress });
  const runc = await sh('sh', ['-c', 'command -v runc']).then(
    (path) => path.trim(),
    () => {
      throw new Error('real nodes need runc (Debian: apt-get install -y runc)');
    },
  );
  return { bins, images: await ensureNodeImages(bins), runc };
}

async function startOnce(bins: Binaries, options: ClusterOptions, nodeInputs?: NodeInputs): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'topogate-e2e-'));
  if (!options.detach && !process.env['TOPOGATE_E2E_KEEP']) ownDir(dir);
  let state: ClusterState;
  try {
    state = await prepare(bins, dir, options, nodeInputs);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    disownDir(dir);
    throw error;
  }
  const cluster = attachCluster(state, { owned: !options.detach });
  try {
    if (state.nodes) await createNetwork(state.nodes.nodes);
    for (let i = 0; i < state.etcd.length; i++) await cluster.startEtcdMember(i, { wait: false });
    for (let i = 0; i < state.etcd.length; i++) await waitEtcd(state, i);
    await startAndWait(state, 'kube-apiserver', !options.detach);
    await startAndWait(state, 'kube-scheduler', !options.detach);
    await startAndWait(state, 'kube-controller-manager', !options.detach);
    if (state.nodes && nodeInputs) {
      if (!options.detach) ownCleanup(abandonNodes(state.nodes));
      await startNodes(state, state.nodes, nodeInputs);
    }
  } catch (error) {
    // The temp dir goes with stop(): keep what the logs said in the error.
    const logs = [
      ...state.components.filter((c) => c.pid).map((c) => `--- ${c.name} (${c.logFile})\n${logTail(c.logFile, 10)}`),
      ...(state.nodes?.nodes ?? []).filter((n) => n.pid).map((n) => nodeLogs(n, 10)),
    ];
    await cluster.stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs.join('\n')}`, { cause: error });
  }
  return cluster;
}

/** Starts every node, the delayer, loads the nodes' own images and waits until every node is Ready. */
async function startNodes(state: ClusterState, nodes: RealNodes, inputs: NodeInputs): Promise<void> {
  for (const node of nodes.nodes) startNode(node);
  nodes.delayer.pid = startDelayer(state.dir, inputs.bins.delayer).pid;
  await waitContainerd(nodes);
  await importImage(nodes, inputs.images.pause);
  await importImage(nodes, inputs.images.web);
  await waitFor(
    async () => readyNodes(await httpsGet(`${state.server}/api/v1/nodes`, state.admin)) === nodes.nodes.length,
    {
      what: `${nodes.nodes.length} Ready nodes`,
      timeoutMs: readyTimeoutMs.nodes,
      intervalMs: 500,
      abortIf: () => {
        const stopped = nodes.nodes.find((n) => !isAlive(n.pid));
        return stopped ? `${stopped.name} stopped:\n${nodeLogs(stopped)}` : undefined;
      },
    },
  );
}

function readyNodes(answer: { status: number; body: string }): number {
  if (answer.status !== 200) return 0;
  const list = JSON.parse(answer.body) as {
    items?: Array<{ status?: { conditions?: Array<{ type?: string; status?: string }> } }>;
  };
  return (list.items ?? []).filter((node) =>
    node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  ).length;
}

/** The PKI, kubeconfigs and command lines of a cluster in dir, nothing started yet. */
async function prepare(
  bins: Binaries,
  dir: string,
  options: ClusterOptions,
  nodeInputs?: NodeInputs,
): Promise<ClusterState> {
  const memberCount = options.etcdMembers ?? 1;
  mkdirSync(join(dir, 'logs'));
  const withNodes = nodeInputs !== undefined && (options.nodes ?? 0) > 0;
  const pki = createClusterPki(withNodes ? [network.hostIp] : []);
  const [apiPort, schedulerPort, controllerManagerPort, ...etcdPorts] = await freePorts(3 + 3 * memberCount);
  if (apiPort === undefined || schedulerPort === undefined || controllerManagerPort === undefined) {
    throw new Error('no free loopback ports');
  }
  const etcd = etcdMembers(etcdPorts, memberCount);
  // With nodes, the API server listens on the host's end of the link to the nodes, where Pods reach it.
  const server = `https://${withNodes ? network.hostIp : '127.0.0.1'}:${apiPort}`;

  const certDir = join(dir, 'pki');
  mkdirSync(certDir);
  const write = (name: string, content: string) => {
    const file = join(certDir, name);
    writeFileSync(file, content, { mode: 0o600 });
    return file;
  };
  write('apiserver.crt', pki.apiServer.certPem);
  write('apiserver.key', pki.apiServer.keyPem);
  const files = {
    certDir,
    clientCa: write('ca.crt', pki.ca.certPem),
    serviceAccountPublicKey: write('sa.pub', pki.serviceAccount.publicPem),
    serviceAccountPrivateKey: write('sa.key', pki.serviceAccount.privatePem),
  };
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    kubeconfigYaml(server, pki.ca.certPem, { name: 'admin', certPem: pki.admin.certPem, keyPem: pki.admin.keyPem }),
    { mode: 0o600 },
  );
  const componentKubeconfig = (name: string, user: { certPem: string; keyPem: string }) => {
    const file = join(dir, `${name}.kubeconfig`);
    writeFileSync(file, kubeconfigYaml(server, pki.ca.certPem, { name, ...user }), { mode: 0o600 });
    return file;
  };
  const schedulerKubeconfig = componentKubeconfig('kube-scheduler', pki.scheduler);
  const controllerManagerKubeconfig = componentKubeconfig('kube-controller-manager', pki.controllerManager);
  const serving = {
    cert: write('loopback.crt', pki.loopbackServing.certPem),
    key: write('loopback.key', pki.loopbackServing.keyPem),
  };

  const nodes =
    withNodes && nodeInputs
      ? {
          ...prepareNodes(
            dir,
            options.nodes ?? 0,
            nodeInputs.bins,
            {
              server,
              ca: pki.ca,
              clientCaFile: files.clientCa,
            },
            nodeInputs.runc,
          ),
          delayer: { pid: 0, delaysFile: join(dir, 'delays'), logFile: join(dir, 'logs', 'delayer.log') },
        }
      : undefined;
  const nodeArgs = nodes
    ? {
        apiServer: [
          `--bind-address=${network.hostIp}`,
          `--advertise-address=${network.hostIp}`,
          '--kubelet-preferred-address-types=InternalIP',
          `--kubelet-client-certificate=${write('kubelet-client.crt', pki.admin.certPem)}`,
          `--kubelet-client-key=${write('kubelet-client.key', pki.admin.keyPem)}`,
          // Webhooks (and aggregated APIs) are called at an endpoint's Pod IP, not the Service's ClusterIP:
          // the host has no kube-proxy, and the Pod prefixes are routed to it.
          '--enable-aggregator-routing=true',
          '--enable-admission-plugins=NodeRestriction',
        ],
        // Real kubelets: the node lifecycle controller marks a node whose kubelet stopped NotReady.
        controllerManager: ['--controllers=*,-pod-garbage-collector-controller', '--node-monitor-grace-period=20s'],
      }
    : { apiServer: [], controllerManager: [] };

  return {
    dir,
    kubeconfig,
    server,
    ...(nodes ? { nodes } : {}),
    kubectl: bins.kubectl,
    etcd,
    admin: { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem },
    schedulerPort,
    controllerManagerPort,
    components: [
      ...etcd.map((member) => etcdComponent(bins, dir, member, etcd, options.etcdFsync)),
      apiServerComponent(bins, dir, apiPort, etcd, files, [...nodeArgs.apiServer, ...(options.apiServerArgs ?? [])]),
      schedulerComponent(bins, dir, schedulerPort, schedulerKubeconfig, serving, options.schedulerArgs),
      controllerManagerComponent(
        bins,
        dir,
        controllerManagerPort,
        controllerManagerKubeconfig,
        { ...serving, rootCa: files.clientCa, serviceAccountPrivateKey: files.serviceAccountPrivateKey },
        [...nodeArgs.controllerManager, ...(options.controllerManagerArgs ?? [])],
      ),
    ].map((component) => ({ ...component, pid: 0 })),
  };
}

/** The part of a cluster that can be saved and attached to again. */
export function clusterState(cluster: Cluster): ClusterState {
  const { dir, kubeconfig, server, kubectl, etcd, admin, schedulerPort, controllerManagerPort, components, nodes } =
    cluster;
  return {
    dir,
    kubeconfig,
    server,
    kubectl,
    etcd,
    admin,
    schedulerPort,
    controllerManagerPort,
    components,
    ...(nodes ? { nodes } : {}),
  };
}

export interface AttachOptions {
  /** Kill the processes if this process exits before stop(). */
  readonly owned?: boolean;
}

export function attachCluster(state: ClusterState, options: AttachOptions = {}): Cluster {
  const owned = options.owned ?? false;
  const component = (name: string) => {
    const found = state.components.find((c) => c.name === name);
    if (!found) throw new Error(`no component ${name} in this cluster`);
    return found;
  };
  const etcdMember = (index: number) => {
    const member = state.etcd[index];
    if (!member) throw new Error(`no etcd member ${index}: the cluster has ${state.etcd.length}`);
    return component(member.name);
  };
  return {
    ...state,
    etcdMetricsUrls: state.etcd.map((member) => `${member.metricsUrl}/metrics`),
    async stop() {
      // The nodes first (while the API server still answers), then the control plane in reverse order:
      // the scheduler and API server go before their storage.
      if (state.nodes) await stopNodes(state.nodes);
      for (const c of [...state.components].reverse()) await stopOne(c);
      if (process.env['TOPOGATE_E2E_KEEP']) process.stderr.write(`kept ${state.dir} (TOPOGATE_E2E_KEEP)\n`);
      else rmSync(state.dir, { recursive: true, force: true });
      disownDir(state.dir);
    },
    async restartApiServer() {
      await stopOne(component('kube-apiserver'));
      await startAndWait(state, 'kube-apiserver', owned);
    },
    async stopEtcdMember(index) {
      await stopOne(etcdMember(index));
    },
    async startEtcdMember(index, { wait = true } = {}) {
      const member = etcdMember(index);
      member.pid = startDetached(member);
      if (owned) own(member.pid);
      if (wait) await waitEtcd(state, index);
    },
    get: (path) => httpsGet(`${state.server}${path}`, state.admin),
  };
}

/** Only while it still runs its own command: a pid from an old state file may have been recycled. */
async function stopOne(component: RunningComponent): Promise<void> {
  if (component.pid && runs(component.pid, component.command)) await stopProcess(component.pid);
  disown(component.pid);
}

async function waitEtcd(state: ClusterState, index: number): Promise<void> {
  const member = state.etcd[index];
  if (!member) throw new Error(`no etcd member ${index}`);
  const component = state.components.find((c) => c.name === member.name);
  if (!component) throw new Error(`no component ${member.name}`);
  await waitFor(
    async () => {
      const answer = await fetch(`${member.metricsUrl}/health`);
      return answer.ok && ((await answer.json()) as { health?: string }).health === 'true';
    },
    { what: member.name, timeoutMs: readyTimeoutMs.etcd, abortIf: () => exited(component) },
  );
}

type Started = 'kube-apiserver' | 'kube-scheduler' | 'kube-controller-manager';

async function startAndWait(state: ClusterState, name: Started, owned: boolean): Promise<void> {
  const component = state.components.find((c) => c.name === name);
  if (!component) throw new Error(`no component ${name}`);
  component.pid = startDetached(component);
  if (owned) own(component.pid);
  const ready: Record<Started, { check: () => Promise<boolean>; timeoutMs: number }> = {
    'kube-apiserver': {
      check: async () => (await httpsGet(`${state.server}/readyz`, state.admin)).status === 200,
      timeoutMs: readyTimeoutMs.apiServer,
    },
    'kube-scheduler': {
      check: async () =>
        (await httpsGet(`https://127.0.0.1:${state.schedulerPort}/readyz`, state.admin)).status === 200,
      timeoutMs: readyTimeoutMs.scheduler,
    },
    // Healthy is not enough: ServiceAccount admission rejects Pods until the
    // controllers (which start once this one leads) made the `default` ServiceAccount.
    'kube-controller-manager': {
      check: async () =>
        (await httpsGet(`https://127.0.0.1:${state.controllerManagerPort}/healthz`, state.admin)).status === 200 &&
        (await httpsGet(`${state.server}/api/v1/namespaces/default/serviceaccounts/default`, state.admin)).status ===
          200,
      timeoutMs: readyTimeoutMs.controllerManager,
    },
  };
  await waitFor(ready[name].check, {
    what: name,
    timeoutMs: ready[name].timeoutMs,
    intervalMs: 250,
    abortIf: () => exited(component),
  });
}

function exited(component: RunningComponent): string | undefined {
  return isAlive(component.pid) ? undefined : `exited; the end of ${component.logFile}:\n${logTail(component.logFile)}`;
}

// Real nodes beside the control plane: each a containerd, a kubelet and a kube-proxy in the node's own
// network namespace (netns.ts) and a private mount namespace (nodeconfig.ts), with its agents and Pods
// under one cgroup per node so that stopping it finds every process, shims and containers included.

import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { kubeconfigYaml } from './kubeconfig.ts';
import { sh } from './netns.ts';
import type { NodePaths } from './nodeconfig.ts';
import {
  cgroupParent,
  cniConflist,
  containerdToml,
  kubeletYaml,
  kubeProxyYaml,
  nodePaths,
  nodeScript,
} from './nodeconfig.ts';
import type { NodePlan } from './nodeplan.ts';
import { nodePlans } from './nodeplan.ts';
import type { KeyPair } from './pki.ts';
import { issueClient } from './pki.ts';
import { isAlive, logTail } from './process.ts';
import type { NodeBinaries } from './versions.ts';

export interface RunningNode extends NodePlan {
  readonly paths: NodePaths;
  /** The node's script (nsenter … sh run.sh), parent of its agents; 0 before it starts. */
  pid: number;
}

export interface NodesState {
  readonly nodes: readonly RunningNode[];
  readonly ctr: string;
}

const cgroupRoot = '/sys/fs/cgroup';

/** Writes every node's files (certificates signed by the cluster CA, configs, script); starts nothing. */
export function prepareNodes(
  clusterDir: string,
  count: number,
  bins: NodeBinaries,
  cluster: { readonly server: string; readonly ca: KeyPair; readonly clientCaFile: string },
  runc: string,
): NodesState {
  // kube-proxy's identity, bound to system:node-proxier by the default RBAC.
  const proxyCert = issueClient(cluster.ca, 'system:kube-proxy');
  const nodes = nodePlans(count).map((node) => {
    const paths = nodePaths(clusterDir, node);
    for (const dir of [paths.dir, paths.cniConfDir, paths.logDir, join(paths.dir, 'sysctl')]) {
      mkdirSync(dir, { recursive: true });
    }
    const write = (file: string, content: string) => writeFileSync(file, content, { mode: 0o600 });
    const nodeCert = issueClient(cluster.ca, `system:node:${node.name}`, 'system:nodes');
    write(
      paths.kubeletKubeconfig,
      kubeconfigYaml(cluster.server, cluster.ca.certPem, { name: node.name, ...nodeCert }),
    );
    write(
      paths.kubeProxyKubeconfig,
      kubeconfigYaml(cluster.server, cluster.ca.certPem, { name: 'kube-proxy', ...proxyCert }),
    );
    write(paths.containerdConfig, containerdToml(paths, bins, runc));
    write(join(paths.cniConfDir, '10-topogate-e2e.conflist'), cniConflist(paths, node));
    write(paths.kubeletConfig, kubeletYaml(paths, node, cluster.clientCaFile));
    write(paths.kubeProxyConfig, kubeProxyYaml(paths, node));
    write(paths.script, nodeScript(paths, node, bins));
    return { ...node, paths, pid: 0 };
  });
  return { nodes, ctr: bins.ctr };
}

/** The v1 hierarchies a node's cgroup is made in (all but the v2 `unified` one). */
function hierarchies(): string[] {
  return readdirSync(cgroupRoot).filter((name) => name !== 'unified' && statSync(join(cgroupRoot, name)).isDirectory());
}

function makeCgroups(node: NodePlan): void {
  for (const hierarchy of hierarchies()) {
    let path = join(cgroupRoot, hierarchy);
    for (const part of [cgroupParent, node.name, ...(hierarchy === 'pids' ? ['agents'] : [])]) {
      const parent = path;
      path = join(path, part);
      if (!existsSync(path)) mkdirSync(path);
      // A new cpuset cgroup starts with no CPUs and no memory nodes: it gets its parent's.
      if (hierarchy === 'cpuset') {
        for (const file of ['cpuset.cpus', 'cpuset.mems']) {
          if (readFileSync(join(path, file), 'utf8').trim() === '') {
            writeFileSync(join(path, file), readFileSync(join(parent, file), 'utf8'));
          }
        }
      }
    }
  }
}

/** Every process in a node's cgroup tree (agents, shims, containers). */
function nodeProcesses(node: NodePlan): number[] {
  const pids: number[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (line) pids.push(Number(line));
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(join(dir, entry.name));
  };
  walk(join(cgroupRoot, 'pids', cgroupParent, node.name));
  return pids;
}

function removeCgroups(node: NodePlan): void {
  const removeTree = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) removeTree(join(dir, entry.name));
    }
    rmdirSync(dir);
  };
  for (const hierarchy of hierarchies()) {
    removeTree(join(cgroupRoot, hierarchy, cgroupParent, node.name));
    const parent = join(cgroupRoot, hierarchy, cgroupParent);
    if (existsSync(parent) && readdirSync(parent, { withFileTypes: true }).every((e) => !e.isDirectory())) {
      rmdirSync(parent);
    }
  }
}

export function startNode(node: RunningNode): void {
  makeCgroups(node);
  const log = openSync(join(node.paths.logDir, 'node.log'), 'a');
  try {
    const child = spawn(
      'nsenter',
      [`--net=/run/netns/${node.netns}`, 'unshare', '--mount', '--propagation', 'slave', 'sh', node.paths.script],
      { detached: true, stdio: ['ignore', log, log] },
    );
    child.unref();
    if (child.pid === undefined) throw new Error(`${node.name}: could not start its script`);
    node.pid = child.pid;
  } finally {
    closeSync(log);
  }
}

/** stopNode for an exiting process: synchronous, bounded (50 rounds), never throws. */
export function stopNodeSync(node: RunningNode): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let round = 0; round < 50; round++) {
    const pids = nodeProcesses(node);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    Atomics.wait(pause, 0, 0, 100);
  }
  try {
    removeCgroups(node);
  } catch {
    // left for `cluster down`
  }
}

/** Kills every process of the node (bounded: 20 s), then removes its cgroups. Never throws. */
export async function stopNode(node: RunningNode): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pids = nodeProcesses(node);
    if (pids.length === 0 || Date.now() > deadline) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await sleep(100);
  }
  try {
    removeCgroups(node);
  } catch (error) {
    process.stderr.write(`${node.name}: could not remove its cgroups: ${String(error)}\n`);
  }
  node.pid = 0;
}

/**
 * hold: stops the node's kubelet (SIGKILL, as a crash) and keeps it stopped; containerd, kube-proxy and the
 * Pods go on, as on a real node whose kubelet died. Not held: the node's script starts it again.
 */
export async function holdKubelet(node: RunningNode, hold: boolean): Promise<void> {
  if (!hold) {
    rmSync(node.paths.kubeletHold, { force: true });
    return;
  }
  writeFileSync(node.paths.kubeletHold, '');
  const kubelets = nodeProcesses(node).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]?.endsWith('/kubelet') === true;
    } catch {
      return false;
    }
  });
  if (kubelets.length === 0) throw new Error(`${node.name} runs no kubelet`);
  for (const pid of kubelets) process.kill(pid, 'SIGKILL');
  await sleep(100);
}

/** Waits for containerd's socket on every node, then imports the given docker archives into each. */
export async function waitContainerd(state: NodesState, timeoutMs = 60_000): Promise<void> {
  for (const node of state.nodes) {
    const deadline = Date.now() + timeoutMs;
    while (!existsSync(node.paths.socket)) {
      if (!isAlive(node.pid)) throw new Error(`${node.name} stopped: ${nodeLogs(node)}`);
      if (Date.now() > deadline) throw new Error(`${node.name}: no containerd socket after ${timeoutMs} ms`);
      await sleep(100);
    }
  }
}

/** `ctr images import` of one docker archive into every node's containerd (the CRI's k8s.io namespace). */
export async function importImage(state: NodesState, archive: string): Promise<void> {
  await Promise.all(
    state.nodes.map((node) =>
      sh(state.ctr, ['--address', node.paths.socket, '-n', 'k8s.io', 'images', 'import', archive], 300_000),
    ),
  );
}

export function nodeLogs(node: RunningNode, lines = 15): string {
  return ['node', 'containerd', 'kubelet', 'kube-proxy']
    .map((name) => `--- ${node.name} ${name}\n${logTail(join(node.paths.logDir, `${name}.log`), lines)}`)
    .join('\n');
}

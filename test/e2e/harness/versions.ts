// Which control plane the harness runs, read from the two Go modules that
// pin it, and where its binaries are cached (outside the repo, per version).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const e2eDir = fileURLToPath(new URL('..', import.meta.url));
export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** A Go module of the harness: its folder, the packages it builds, and the version it pins. */
export interface GoModule {
  readonly dir: string;
  readonly packages: readonly string[];
  readonly requires: string;
  /** The files the build depends on, when not go.mod, go.sum and tools.go. */
  readonly sources?: readonly string[];
  /** The name of its build stamp, when `requires` is another module's too (the kubelet's k8s.io/kubernetes). */
  readonly stamp?: string;
}

export const kubernetesModule: GoModule = {
  dir: join(e2eDir, 'k8s'),
  packages: [
    'k8s.io/kubernetes/cmd/kube-apiserver',
    'k8s.io/kubernetes/cmd/kube-controller-manager',
    'k8s.io/kubernetes/cmd/kube-scheduler',
    'k8s.io/kubernetes/cmd/kubectl',
  ],
  requires: 'k8s.io/kubernetes',
};

export const etcdModule: GoModule = {
  dir: join(e2eDir, 'etcd'),
  packages: ['go.etcd.io/etcd/server/v3'],
  requires: 'go.etcd.io/etcd/server/v3',
};

/** The real nodes' agents (test/e2e/node): the kubelet and kube-proxy of the control plane's release. */
export const nodeModule: GoModule = {
  dir: join(e2eDir, 'node'),
  packages: ['k8s.io/kubernetes/cmd/kubelet', 'k8s.io/kubernetes/cmd/kube-proxy'],
  requires: 'k8s.io/kubernetes',
  stamp: 'node-agents',
};

export const containerdModule: GoModule = {
  dir: join(e2eDir, 'containerd'),
  packages: [
    'github.com/containerd/containerd/v2/cmd/containerd',
    'github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2',
    'github.com/containerd/containerd/v2/cmd/ctr',
  ],
  requires: 'github.com/containerd/containerd/v2',
};

export const cniModule: GoModule = {
  dir: join(e2eDir, 'cni'),
  packages: [
    'github.com/containernetworking/plugins/plugins/ipam/host-local',
    'github.com/containernetworking/plugins/plugins/main/bridge',
    'github.com/containernetworking/plugins/plugins/main/loopback',
    'github.com/containernetworking/plugins/plugins/meta/portmap',
  ],
  requires: 'github.com/containernetworking/plugins',
};

/** The project's own node programs (test/e2e/nodetools): no dependency, so its sources are its version. */
export const nodeToolsModule: GoModule = {
  dir: join(e2eDir, 'nodetools'),
  packages: ['./pause', './web', './delayer'],
  requires: 'topogate.dev/e2e/nodetools',
  sources: ['go.mod', 'pause/main.go', 'web/main.go', 'delayer/main.go'],
};

export function requiredVersion(module: GoModule): string {
  if (module.sources) return 'local';
  const goMod = readFileSync(join(module.dir, 'go.mod'), 'utf8');
  const escaped = module.requires.replaceAll('.', '\\.').replaceAll('/', '\\/');
  const found = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod);
  if (!found?.[1]) throw new Error(`${module.dir}/go.mod does not require ${module.requires}`);
  return found[1];
}

/** Changes whenever a module file changes, so a stale cache is never reused. */
export function moduleDigest(module: GoModule): string {
  const hash = createHash('sha256');
  for (const file of module.sources ?? ['go.mod', 'go.sum', 'tools.go'])
    hash.update(readFileSync(join(module.dir, file)));
  return hash.digest('hex').slice(0, 16);
}

export function cacheRoot(): string {
  return process.env['TOPOGATE_E2E_CACHE'] ?? join(homedir(), '.cache', 'topogate-e2e');
}

export interface Binaries {
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kubectl: string;
}

export function binDir(): string {
  return join(cacheRoot(), requiredVersion(kubernetesModule));
}

export function binaries(dir = binDir()): Binaries {
  return {
    etcd: join(dir, 'etcd'),
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
    kubeScheduler: join(dir, 'kube-scheduler'),
    kubectl: join(dir, 'kubectl'),
  };
}

/** What a real node runs, built into binDir() beside the control plane; the CNI plugins in their own folder. */
export interface NodeBinaries {
  readonly kubelet: string;
  readonly kubeProxy: string;
  readonly containerd: string;
  readonly containerdShim: string;
  readonly ctr: string;
  /** The folder of the CNI plugins (bridge, host-local, loopback, portmap). */
  readonly cniDir: string;
  readonly pause: string;
  readonly web: string;
  readonly delayer: string;
}

export function nodeBinaries(dir = binDir()): NodeBinaries {
  return {
    kubelet: join(dir, 'kubelet'),
    kubeProxy: join(dir, 'kube-proxy'),
    containerd: join(dir, 'containerd'),
    containerdShim: join(dir, 'containerd-shim-runc-v2'),
    ctr: join(dir, 'ctr'),
    cniDir: join(dir, 'cni'),
    pause: join(dir, 'nodetools', 'pause'),
    web: join(dir, 'nodetools', 'web'),
    delayer: join(dir, 'nodetools', 'delayer'),
  };
}

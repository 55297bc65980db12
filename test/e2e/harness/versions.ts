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

export function requiredVersion(module: GoModule): string {
  const goMod = readFileSync(join(module.dir, 'go.mod'), 'utf8');
  const escaped = module.requires.replaceAll('.', '\\.').replaceAll('/', '\\/');
  const found = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod);
  if (!found?.[1]) throw new Error(`${module.dir}/go.mod does not require ${module.requires}`);
  return found[1];
}

/** Changes whenever a module file changes, so a stale cache is never reused. */
export function moduleDigest(module: GoModule): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'tools.go']) hash.update(readFileSync(join(module.dir, file)));
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

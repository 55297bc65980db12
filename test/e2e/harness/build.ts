// Builds the control plane from the pinned Go modules into the cache, or
// reuses what is there while the module files are unchanged. Needs only Go and
// the module proxy: no prebuilt downloads.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Binaries, GoModule, NodeBinaries } from './versions.ts';
import {
  binaries,
  binDir,
  cniModule,
  containerdModule,
  e2eDir,
  etcdModule,
  kubernetesModule,
  moduleDigest,
  nodeBinaries,
  nodeModule,
  nodeToolsModule,
  requiredVersion,
} from './versions.ts';

export interface BuildOptions {
  /** Progress lines (and Go's own output) go here. */
  readonly progress?: NodeJS.WritableStream;
}

export async function ensureBinaries(options: BuildOptions = {}): Promise<Binaries> {
  const progress = options.progress ?? process.stderr;
  const dir = binDir();
  mkdirSync(dir, { recursive: true });
  const bins = binaries(dir);
  const kubernetesVersion = requiredVersion(kubernetesModule);
  await ensureModule(
    kubernetesModule,
    [bins.kubeApiserver, bins.kubeControllerManager, bins.kubeScheduler, bins.kubectl],
    {
      dir,
      progress,
      output: `${dir}/`,
      ldflags: kubernetesVersionFlags(kubernetesVersion),
    },
  );
  await ensureModule(etcdModule, [bins.etcd], { dir, progress, output: bins.etcd, ldflags: [] });
  return bins;
}

/**
 * The real nodes' binaries: kubelet and kube-proxy (the control plane's release), containerd with ctr and the
 * runc shim, the CNI plugins, and the project's own pause, web server and delayer. Each module has its own stamp.
 */
export async function ensureNodeBinaries(options: BuildOptions = {}): Promise<NodeBinaries> {
  const progress = options.progress ?? process.stderr;
  const dir = binDir();
  const bins = nodeBinaries(dir);
  mkdirSync(bins.cniDir, { recursive: true });
  mkdirSync(dirname(bins.pause), { recursive: true });
  const kubernetesVersion = requiredVersion(nodeModule);
  await ensureModule(nodeModule, [bins.kubelet, bins.kubeProxy], {
    dir,
    progress,
    output: `${dir}/`,
    ldflags: kubernetesVersionFlags(kubernetesVersion),
  });
  const containerdVersion = requiredVersion(containerdModule);
  await ensureModule(containerdModule, [bins.containerd, bins.containerdShim, bins.ctr], {
    dir,
    progress,
    output: `${dir}/`,
    ldflags: [`-X github.com/containerd/containerd/v2/version.Version=${containerdVersion}`],
  });
  await ensureModule(
    cniModule,
    ['bridge', 'host-local', 'loopback', 'portmap'].map((p) => join(bins.cniDir, p)),
    {
      dir,
      progress,
      output: `${bins.cniDir}/`,
      ldflags: [],
    },
  );
  await ensureModule(nodeToolsModule, [bins.pause, bins.web, bins.delayer], {
    dir,
    progress,
    output: `${dirname(bins.pause)}/`,
    ldflags: [],
  });
  return bins;
}

/** helm, for the chart's e2e tests: a Go module of its own (test/e2e/helm), so pinning it rebuilds nothing else. */
export const helmModule: GoModule = {
  dir: join(e2eDir, 'helm'),
  packages: ['helm.sh/helm/v4/cmd/helm'],
  requires: 'helm.sh/helm/v4',
};

/** Builds helm into the binary cache beside the control plane (with its own stamp), or reuses it; its path. */
export async function ensureHelm(options: BuildOptions = {}): Promise<string> {
  const dir = binDir();
  mkdirSync(dir, { recursive: true });
  const helm = join(dir, 'helm');
  const version = `-X helm.sh/helm/v4/internal/version.version=${requiredVersion(helmModule)}`;
  await ensureModule(helmModule, [helm], {
    dir,
    progress: options.progress ?? process.stderr,
    output: helm,
    ldflags: [version],
  });
  return helm;
}

/** The Kueue manager, for the placement benchmark's Kueue TAS arm: a Go module of its own (test/e2e/kueue). */
export const kueueModule: GoModule = {
  dir: join(e2eDir, 'kueue'),
  packages: ['sigs.k8s.io/kueue/cmd/kueue'],
  requires: 'sigs.k8s.io/kueue',
};

/** Builds the Kueue manager into `kueue/` of the binary cache (with its own stamp), or reuses it; its path. */
export async function ensureKueue(options: BuildOptions = {}): Promise<string> {
  const dir = binDir();
  mkdirSync(join(dir, 'kueue'), { recursive: true });
  const kueue = join(dir, 'kueue', 'kueue');
  const version = `-X sigs.k8s.io/kueue/pkg/version.GitVersion=${requiredVersion(kueueModule)}`;
  await ensureModule(kueueModule, [kueue], {
    dir,
    progress: options.progress ?? process.stderr,
    output: kueue,
    ldflags: [version],
  });
  return kueue;
}

interface ModuleBuild {
  readonly dir: string;
  readonly progress: NodeJS.WritableStream;
  /** `go build -o`: a folder (ending in /) for several commands, a file for one. */
  readonly output: string;
  readonly ldflags: readonly string[];
}

async function ensureModule(module: GoModule, outputs: readonly string[], build: ModuleBuild): Promise<void> {
  const stampFile = join(build.dir, `${module.stamp ?? module.requires.replaceAll('/', '_')}.stamp`);
  const stamp = `${requiredVersion(module)} ${moduleDigest(module)}\n`;
  const cached =
    existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && outputs.every((file) => existsSync(file));
  if (cached) return;
  const started = Date.now();
  build.progress.write(
    `building ${module.requires} ${requiredVersion(module)} into ${build.dir} (a cold build takes a while)\n`,
  );
  const args = ['build', `-ldflags=-s -w ${build.ldflags.join(' ')}`.trim(), '-o', build.output, ...module.packages];
  await run('go', args, module.dir, build.progress);
  writeFileSync(stampFile, stamp);
  build.progress.write(`built ${module.requires} in ${Math.round((Date.now() - started) / 1000)}s\n`);
}

/** Without these the binaries report v0.0.0-master, which kubectl warns about. */
function kubernetesVersionFlags(version: string): string[] {
  const [major, minor] = version.replace(/^v/, '').split('.');
  const pkg = 'k8s.io/component-base/version';
  return [
    `-X ${pkg}.gitVersion=${version}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ];
}

function run(command: string, args: readonly string[], cwd: string, progress: NodeJS.WritableStream): Promise<void> {
  const env = { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=mod' };
  // nice: the build shares a small machine with whatever else runs on it.
  const child = spawn('nice', ['-n', '10', command, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(progress, { end: false });
  child.stderr.pipe(progress, { end: false });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${signal ?? `exit ${code}`}`));
    });
  });
}

// Local base images for topogate's Containerfile, where no image registry can be reached: the pinned
// Node (the `node` npm package's binary, stripped of its symbols) with the shared libraries it links,
// copied from this machine's Debian packages (libc6, libstdc++6, libgcc-s1, libatomic1), and a passwd
// entry for the non-root user. No shell, no package manager. The build base adds this machine's npm,
// `env` (npm's `#!/usr/bin/env node`) and CA bundle, for the stage that installs the dependencies.
// Both are kept by tag and reused while a digest of what goes into them is unchanged.

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podman, podmanOk } from './podman.ts';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const caBundle = '/etc/ssl/certs/ca-certificates.crt';
const digestLabel = 'dev.topogate.inputs';

export interface LocalBases {
  /** The runtime base: Node and its libraries. */
  readonly base: string;
  /** The base plus npm, for `npm ci`. */
  readonly buildBase: string;
}

export interface BaseOptions {
  readonly progress: NodeJS.WritableStream;
  /** Make them again even if the tags exist with the same inputs. */
  readonly rebuild?: boolean;
}

export async function ensureLocalBases(options: BaseOptions): Promise<LocalBases> {
  const node = pinnedNode();
  const npm = machineNpm();
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
  const digest = createHash('sha256')
    .update(version)
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(readFileSync(join(npm, 'package.json')))
    .digest('hex')
    .slice(0, 16);
  const bases = { base: `localhost/topogate-base:${version}`, buildBase: `localhost/topogate-build-base:${version}` };
  if (!options.rebuild && (await current(bases.base, digest)) && (await current(bases.buildBase, digest))) {
    options.progress.write(`reusing ${bases.base} and ${bases.buildBase} (inputs ${digest})\n`);
    return bases;
  }
  const rootfs = mkdtempSync(join(tmpdir(), 'topogate-base-'));
  try {
    runtimeTree(rootfs, node);
    await importTree(rootfs, bases.base, digest, []);
    buildTools(rootfs, npm);
    const env = [
      `NPM_CONFIG_REGISTRY=${npmConfig('registry')}`,
      ...(existsSync(caBundle) ? [`NPM_CONFIG_CAFILE=${caBundle}`] : []),
    ];
    await importTree(rootfs, bases.buildBase, digest, env);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  options.progress.write(`made ${bases.base} and ${bases.buildBase}\n`);
  return bases;
}

/** The binary of the pinned `node` package, as `npm ci` left it in this checkout. */
function pinnedNode(): string {
  const binary = join(
    dirname(createRequire(join(repoRoot, 'package.json')).resolve('node/package.json')),
    'bin',
    'node',
  );
  if (!existsSync(binary)) throw new Error(`the pinned Node is missing (${binary}): run npm ci in ${repoRoot}`);
  return binary;
}

/** The npm this machine runs (its package folder), copied into the build base. */
function machineNpm(): string {
  const cli = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  return dirname(dirname(realpathSync(cli)));
}

function npmConfig(key: string): string {
  return execFileSync('npm', ['config', 'get', key], { encoding: 'utf8' }).trim();
}

async function current(tag: string, digest: string): Promise<boolean> {
  const inspected = await podman(['image', 'inspect', '--format', `{{ index .Labels "${digestLabel}" }}`, tag]);
  return inspected.code === 0 && inspected.stdout.trim() === digest;
}

function runtimeTree(rootfs: string, node: string): void {
  const target = join(rootfs, 'usr/local/bin/node');
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(node, target);
  // The symbols are two thirds of the 150 MB binary's size and unused at run time.
  execFileSync('strip', ['--strip-all', target]);
  copyLibraries(rootfs, target);
  mkdirSync(join(rootfs, 'etc'), { recursive: true });
  writeFileSync(
    join(rootfs, 'etc/passwd'),
    'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin\n',
  );
  writeFileSync(join(rootfs, 'etc/group'), 'root:x:0:\nnonroot:x:65532:\n');
  mkdirSync(join(rootfs, 'tmp'));
  chmodSync(join(rootfs, 'tmp'), 0o1777);
}

/** What `ldd` says the binary loads, at the same paths, symlinks resolved. */
function copyLibraries(rootfs: string, binary: string): void {
  const ldd = execFileSync('ldd', [binary], { encoding: 'utf8' });
  for (const [, path] of ldd.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)) {
    if (path === undefined) continue;
    const target = join(rootfs, path);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(path, target);
  }
}

function buildTools(rootfs: string, npm: string): void {
  cpSync(npm, join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm'));
  mkdirSync(join(rootfs, 'usr/bin'), { recursive: true });
  copyFileSync('/usr/bin/env', join(rootfs, 'usr/bin/env'));
  copyLibraries(rootfs, '/usr/bin/env');
  mkdirSync(join(rootfs, 'root'), { recursive: true });
  if (existsSync(caBundle)) {
    mkdirSync(dirname(join(rootfs, caBundle)), { recursive: true });
    copyFileSync(caBundle, join(rootfs, caBundle));
  }
}

async function importTree(rootfs: string, tag: string, digest: string, env: readonly string[]): Promise<void> {
  const tar = spawn('tar', ['-C', rootfs, '--numeric-owner', '--owner=0', '--group=0', '-c', '.'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const changes = [
    'ENV PATH=/usr/local/bin:/usr/bin:/bin',
    `LABEL ${digestLabel}=${digest}`,
    ...env.map((e) => `ENV ${e}`),
  ];
  await podmanOk(['import', ...changes.flatMap((change) => ['--change', change]), '-', tag], { stdin: tar.stdout });
}

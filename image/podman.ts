// Runs podman with the settings this project's machines need (containers.conf beside this file,
// runc): the one way image/ and the e2e suite call it.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const containersConf = fileURLToPath(new URL('containers.conf', import.meta.url));

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface PodmanOptions {
  /** Piped to podman's stdin (a rootfs tar for `import`). */
  readonly stdin?: NodeJS.ReadableStream;
  /** Where podman's own output goes as it runs (a build's steps); it is collected all the same. */
  readonly progress?: NodeJS.WritableStream;
}

export function podman(args: readonly string[], options: PodmanOptions = {}): Promise<Ran> {
  const env = { ...process.env, CONTAINERS_CONF: process.env['CONTAINERS_CONF'] ?? containersConf };
  const child = spawn('podman', ['--runtime', 'runc', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (options.stdin) options.stdin.pipe(child.stdin);
  else child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    options.progress?.write(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    options.progress?.write(chunk);
  });
  return new Promise((resolve, reject) => {
    child.once('error', (error) =>
      reject(
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? new Error('podman is not installed (Debian: apt-get install -y podman buildah runc)')
          : error,
      ),
    );
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** podman, rejecting with its stderr when it fails. */
export async function podmanOk(args: readonly string[], options: PodmanOptions = {}): Promise<string> {
  const ran = await podman(args, options);
  if (ran.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${ran.code}: ${ran.stderr.trim()}`);
  return ran.stdout;
}

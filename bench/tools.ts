// The bench setup step: the load tools come from Debian's packages, installed
// here when missing (the benchmark runs as root on the project's machines).

import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const PACKAGES: Readonly<Record<string, string>> = { wrk: 'wrk', h2load: 'nghttp2-client' };

async function onPath(command: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      await access(join(dir, command), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

export interface Tools {
  /** Debian packages this run installed (empty when they were there). */
  readonly installed: readonly string[];
  readonly wrk: string;
  readonly h2load: string;
}

async function version(command: string, args: readonly string[], pattern: RegExp): Promise<string> {
  const output = await run(command, args).then(
    (result) => result.stdout + result.stderr,
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
  );
  return pattern.exec(output)?.[0] ?? 'unknown version';
}

export async function ensureTools(log: (line: string) => void): Promise<Tools> {
  const missing: string[] = [];
  for (const [command, pkg] of Object.entries(PACKAGES)) if (!(await onPath(command))) missing.push(pkg);
  if (missing.length > 0) {
    if (process.getuid?.() !== 0)
      throw new Error(`missing ${missing.join(', ')}: run apt-get install -y ${missing.join(' ')} as root`);
    log(`setup: apt-get install -y ${missing.join(' ')}`);
    await run('apt-get', ['update', '-qq'], { timeout: 300_000 });
    await run('apt-get', ['install', '-y', '-qq', ...missing], {
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  return {
    installed: missing,
    wrk: await version('wrk', ['-v'], /wrk \S+/),
    h2load: await version('h2load', ['--version'], /h2load \S+/),
  };
}

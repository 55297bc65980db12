// helm as the chart's e2e tests run it: the binary ensureHelm built, a home of its own (cache, config, data) so
// that no user's repositories or plugins come in, and only the test cluster's kubeconfig, never the user's.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureHelm } from './build.ts';

/** The longest one helm command may take: `install --wait` on nodes that pull and start the image. */
const HELM_TIMEOUT_MS = 600_000;

export interface HelmRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Helm {
  /** Runs helm: a non-zero exit is answered, not thrown. */
  readonly run: (args: readonly string[]) => Promise<HelmRun>;
  /** Runs helm, throwing with its stderr unless it exits 0; answers its stdout. */
  readonly ok: (args: readonly string[]) => Promise<string>;
  /** Removes helm's home. */
  readonly remove: () => void;
}

/** helm against the cluster `kubeconfig()` names when a command runs (none yet: commands that need none work). */
export async function startHelm(kubeconfig: () => string | undefined): Promise<Helm> {
  const binary = await ensureHelm();
  const home = mkdtempSync(join(tmpdir(), 'topogate-helm-'));
  const run = (args: readonly string[]) =>
    new Promise<HelmRun>((resolve) => {
      const env = {
        ...process.env,
        KUBECONFIG: kubeconfig() ?? '',
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
      };
      execFile(binary, args, { env, maxBuffer: 32 * 1024 * 1024, timeout: HELM_TIMEOUT_MS }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
      );
    });
  const ok = async (args: readonly string[]) => {
    const ran = await run(args);
    if (ran.code !== 0) throw new Error(`helm ${args.join(' ')} exited ${ran.code}: ${ran.stderr}`);
    return ran.stdout;
  };
  return { run, ok, remove: () => rmSync(home, { recursive: true, force: true }) };
}

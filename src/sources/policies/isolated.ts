// Policy files read off the event loop (shell). A hostile or broken file is
// bounded by the loader (documents and policies per file, policies in all),
// but one document can still be large: a 4 MiB YAML document becomes a syntax
// tree many times its size. Reading in a worker thread with a capped heap and
// a deadline keeps that from the webhook: its loop answers meanwhile, a read
// that needs more memory or time fails with an error the store reports while
// the last good set stays in force, and the memory goes back when the worker
// ends (a million empty documents read in the webhook's own thread blocked it
// for a minute and kept 1.3 GB after the file was deleted).

import { Worker } from 'node:worker_threads';
import type { PolicyError } from '../../policy/errors.ts';
import type { LoadedPolicies } from './files.ts';

export interface IsolatedLoadOptions {
  /** The worker's old-generation heap (default 256 MB: a real set takes a few; serve at 10,000 nodes takes ~160 MB of the 512 Mi limit). */
  readonly maxHeapMb?: number;
  /** How long a read may take (default 30 s: a real set takes milliseconds). */
  readonly timeoutMs?: number;
  readonly cwd?: string;
}

export function loadPoliciesIsolated(
  paths: readonly string[],
  { maxHeapMb = 256, timeoutMs = 30_000, cwd = process.cwd() }: IsolatedLoadOptions = {},
): Promise<LoadedPolicies> {
  return new Promise((resolve) => {
    const failed = (message: string): LoadedPolicies => ({
      policies: [],
      errors: [{ file: paths.join(', '), line: 0, col: 0, message } satisfies PolicyError],
      files: [],
      empty: [],
      cut: [],
    });
    const worker = new Worker(new URL('./loadWorker.ts', import.meta.url), {
      workerData: { paths: [...paths], cwd },
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    });
    let settled = false;
    const settle = (result: LoadedPolicies) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
      void worker.terminate();
    };
    const deadline = setTimeout(
      () => settle(failed(`reading the policy files took longer than ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    worker.once('message', (loaded: LoadedPolicies) => settle(loaded));
    worker.once('error', (error: NodeJS.ErrnoException) =>
      settle(
        failed(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `reading the policy files needed more than ${maxHeapMb} MB of memory`
            : `reading the policy files failed: ${error.message}`,
        ),
      ),
    );
    worker.once('exit', (code) => settle(failed(`reading the policy files ended early (exit code ${code})`)));
  });
}

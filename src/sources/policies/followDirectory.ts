// Following a directory for changes (shell): a burst of events is one change after a quiet time, and a
// directory that cannot be watched (missing, removed) is watched again after a pause, which counts as a change.

import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';

export interface DirectoryFollowOptions {
  readonly dir: string;
  readonly log: Logger;
  /** Quiet time after the last event before `changed`: editors write files in several steps. */
  readonly debounceMs: number;
  /** How long to wait before watching again. */
  readonly retryMs: number;
  readonly changed: () => void;
}

export interface DirectoryFollower {
  /** Watches the directory, unless it is watched already or stopped. */
  follow(): void;
  /** Drops the watch (left on a dead inode when the directory was removed) and watches again later. */
  rewatch(): void;
  stop(): void;
}

export function followDirectory({ dir, log, debounceMs, retryMs, changed }: DirectoryFollowOptions): DirectoryFollower {
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;

  function follow(): void {
    if (stopped || watcher) return;
    try {
      watcher = watch(dir, () => {
        clearTimeout(debounce);
        debounce = setTimeout(changed, debounceMs);
      });
      watcher.on('error', (error) => {
        log.error({ err: error, dir }, 'watching the policy directory failed; retrying');
        rewatch();
      });
    } catch (error) {
      log.error({ err: error, dir }, 'cannot watch the policy directory; retrying');
      scheduleRetry();
    }
  }

  function rewatch(): void {
    watcher?.close();
    watcher = undefined;
    scheduleRetry();
  }

  function scheduleRetry(): void {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      follow();
      changed();
    }, retryMs);
    retry.unref();
  }

  return {
    follow,
    rewatch,
    stop() {
      stopped = true;
      clearTimeout(debounce);
      clearTimeout(retry);
      watcher?.close();
      watcher = undefined;
    },
  };
}

// The policy directory, hot-reloaded (shell). Every change re-reads the whole
// directory; a set with any error is refused and the last good set stays in
// force, said in the log, a metric and readiness.

import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { PolicyProvider, PolicyVersion } from '../../ports/policies.ts';
import type { Readiness } from '../../ports/readiness.ts';
import { formatPolicyError, summarizePolicyErrors } from '../../policy/errors.ts';
import type { SchedulingPolicy } from '../../policy/types.ts';
import { loadPoliciesIsolated, type IsolatedLoadOptions } from './isolated.ts';

export interface PolicyStoreOptions {
  readonly dir: string;
  readonly log: Logger;
  readonly registry: Registry;
  /** Quiet time after the last change before reloading: editors write files in several steps. */
  readonly debounceMs?: number;
  /** How often to retry watching a directory that cannot be watched (missing, removed). */
  readonly retryMs?: number;
  /** The memory and time a read may take (isolated.ts). */
  readonly isolation?: Omit<IsolatedLoadOptions, 'cwd'>;
}

export interface PolicyStore extends PolicyProvider {
  /** Re-reads the directory now (what a change triggers; also for SIGHUP). */
  reload(): Promise<void>;
}

/** Loads the directory once, then follows it. Never rejects: a bad first load leaves the store not ready. */
export async function createPolicyStore(options: PolicyStoreOptions): Promise<PolicyStore> {
  const { dir, log, registry, debounceMs = 200, retryMs = 5000, isolation } = options;
  const metrics = policyMetrics(registry);
  const listeners = new Set<(set: PolicyVersion) => void>();
  let current: PolicyVersion = { version: 0, policies: [] };
  let currentText = '';
  let failure: string | undefined;
  let heldReason: string | undefined;
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  async function loadOnce(): Promise<void> {
    const loaded = await loadPoliciesIsolated([dir], isolation);
    const { errors, files } = loaded;
    const { policies, held } = keepFilesMidRewrite(loaded.policies, [...loaded.empty, ...loaded.cut], current.policies);
    const emptied = held.filter((file) => loaded.empty.includes(file));
    const cut = held.filter((file) => loaded.cut.includes(file));
    metrics.heldEmpty.set(held.length);
    heldReason = heldFilesReason(emptied, cut);
    if (emptied.length > 0)
      log.warn(
        { dir, files: emptied },
        'policy files became empty: their last policies stay in force until the files are deleted or valid again',
      );
    else if (loaded.empty.length > 0) log.warn({ dir, files: loaded.empty }, 'policy files hold no policy');
    if (cut.length > 0)
      log.warn(
        { dir, files: cut },
        'policy files end at a "---" and lost policies they held: those stay in force until the files are whole again',
      );
    if (errors.length > 0) {
      // A removed directory leaves the watcher on a dead inode: watch again once it is back.
      if (errors.some((error) => error.file === dir && error.message.startsWith('cannot read'))) rewatch();
      failure = summarizePolicyErrors(errors);
      metrics.errors.inc();
      metrics.successful.set(0);
      log.error(
        { dir, errors: errors.map(formatPolicyError), version: current.version },
        current.version > 0 ? 'policy reload failed; the last good set stays in force' : 'policies not loaded',
      );
      return;
    }
    failure = undefined;
    metrics.successful.set(1);
    metrics.loadedAt.set(Date.now() / 1000);
    const text = JSON.stringify(policies);
    if (text === currentText && current.version > 0) return;
    current = { version: current.version + 1, policies };
    currentText = text;
    metrics.loaded.set(policies.length);
    log.info(
      { dir, version: current.version, policies: policies.map((policy) => policy.name), files: files.length },
      'policies loaded',
    );
    for (const listener of listeners) notify(listener, current);
  }

  function notify(listener: (set: PolicyVersion) => void, set: PolicyVersion): void {
    try {
      listener(set);
    } catch (error) {
      log.error({ err: error }, 'a policy change listener failed');
    }
  }

  function reload(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await loadOnce().catch((error: unknown) => {
          failure = `cannot load ${dir}: ${(error as Error).message}`;
          metrics.errors.inc();
          log.error({ err: error, dir }, 'policy reload failed');
        });
      } while (again && !stopped);
      running = undefined;
    })();
    return running;
  }

  function follow(): void {
    if (stopped || watcher) return;
    try {
      watcher = watch(dir, () => {
        clearTimeout(debounce);
        debounce = setTimeout(() => void reload(), debounceMs);
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
      void reload();
    }, retryMs);
    retry.unref();
  }

  await reload();
  follow();

  return {
    current: () => current,
    readiness(): Readiness {
      if (current.version === 0) return { ready: false, reason: `policies not loaded: ${failure ?? 'loading'}` };
      const failed =
        failure === undefined
          ? undefined
          : `last reload failed: ${failure}; serving policy set version ${current.version}`;
      const reason = [failed, heldReason].filter((part) => part !== undefined).join('; ');
      return reason === '' ? { ready: true } : { ready: true, reason };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reload,
    async stop() {
      stopped = true;
      clearTimeout(debounce);
      clearTimeout(retry);
      watcher?.close();
      watcher = undefined;
      await running;
    },
  };
}

/**
 * A file that held policies and now holds none, or holds fewer and ends at a `---`, is more likely caught mid-rewrite (an editor's or a shell's
 * truncate-then-write, a full disk) than emptied on purpose: its last policies stay, unless a policy of the same
 * name is now defined elsewhere. Deleting the file is how its policies are removed.
 */
export function keepFilesMidRewrite(
  loaded: readonly SchedulingPolicy[],
  heldFiles: readonly string[],
  previous: readonly SchedulingPolicy[],
): { policies: SchedulingPolicy[]; held: string[] } {
  const empty = new Set(heldFiles);
  const names = new Set(loaded.map((policy) => policy.name));
  const kept = previous.filter(
    (policy) => policy.source !== undefined && empty.has(policy.source.file) && !names.has(policy.name),
  );
  return { policies: [...loaded, ...kept], held: [...new Set(kept.map((policy) => policy.source!.file))] };
}

/** The readiness reason for files whose last policies are held, or undefined when none are. */
function heldFilesReason(emptied: readonly string[], cut: readonly string[]): string | undefined {
  const parts = [
    ...(emptied.length > 0 ? [`emptied: ${emptied.join(', ')}`] : []),
    ...(cut.length > 0 ? [`cut at a "---": ${cut.join(', ')}`] : []),
  ];
  return parts.length === 0
    ? undefined
    : `policies held from files caught mid-rewrite (${parts.join('; ')}); delete a file or make it whole to end this`;
}

function policyMetrics(registry: Registry) {
  const registers = [registry];
  return {
    errors: new Counter({
      name: 'topogate_policy_reload_errors_total',
      help: 'Policy reloads refused because of errors (the last good set stayed in force).',
      registers,
    }),
    loaded: new Gauge({ name: 'topogate_policies_loaded', help: 'Policies in the set in force.', registers }),
    successful: new Gauge({
      name: 'topogate_policy_last_reload_successful',
      help: '1 when the last policy reload succeeded, else 0.',
      registers,
    }),
    heldEmpty: new Gauge({
      name: 'topogate_policy_files_held_empty',
      help: 'Policy files that became empty, or lost policies and end at a "---", whose last policies are kept in force.',
      registers,
    }),
    loadedAt: new Gauge({
      name: 'topogate_policy_last_reload_success_timestamp_seconds',
      help: 'When the policies were last loaded without error (Unix seconds).',
      registers,
    }),
  };
}

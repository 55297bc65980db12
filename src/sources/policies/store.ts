// The policy directory, hot-reloaded (shell). Every change re-reads the whole
// directory; a set with any error is refused and the last good set stays in
// force, said in the log, a metric and readiness.

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { PolicyProvider, PolicyVersion } from '../../ports/policies.ts';
import type { Readiness } from '../../ports/readiness.ts';
import { formatPolicyError, summarizePolicyErrors, type PolicyError } from '../../policy/errors.ts';
import type { SchedulingPolicy } from '../../policy/types.ts';
import { followDirectory } from './followDirectory.ts';
import { heldFilesReason, holdFilesMidRewrite, warnHeldFiles } from './heldFiles.ts';
import { loadPoliciesIsolated, type IsolatedLoadOptions } from './isolated.ts';
import { notifyAll } from './notify.ts';
import { oneAtATime } from './oneAtATime.ts';
import { policyStoreMetrics, type PolicyStoreMetrics } from './storeMetrics.ts';

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

/** What the store holds between reloads. */
interface StoreState {
  current: PolicyVersion;
  /** `current.policies` as JSON: a reload that reads the same set makes no new version. */
  currentText: string;
  /** Why the last reload was refused, until one succeeds. */
  failure: string | undefined;
  heldReason: string | undefined;
}

/** What one reload reads and writes. */
interface Reload {
  readonly dir: string;
  readonly log: Logger;
  readonly metrics: PolicyStoreMetrics;
  readonly state: StoreState;
  readonly listeners: ReadonlySet<(set: PolicyVersion) => void>;
  readonly rewatch: () => void;
}

/** Loads the directory once, then follows it. Never rejects: a bad first load leaves the store not ready. */
export async function createPolicyStore(options: PolicyStoreOptions): Promise<PolicyStore> {
  const { dir, log, debounceMs = 200, retryMs = 5000, isolation } = options;
  const listeners = new Set<(set: PolicyVersion) => void>();
  const state: StoreState = {
    current: { version: 0, policies: [] },
    currentText: '',
    failure: undefined,
    heldReason: undefined,
  };
  let stopped = false;
  const follower = followDirectory({ dir, log, debounceMs, retryMs, changed: () => void reload() });
  const context: Reload = {
    dir,
    log,
    metrics: policyStoreMetrics(options.registry),
    state,
    listeners,
    rewatch: follower.rewatch,
  };
  const loads = oneAtATime(
    () =>
      loadOnce(context, isolation).catch((error: unknown) => {
        state.failure = `cannot load ${dir}: ${(error as Error).message}`;
        context.metrics.errors.inc();
        log.error({ err: error, dir }, 'policy reload failed');
      }),
    () => stopped,
  );
  const reload = () => loads.request();

  await reload();
  follower.follow();

  return {
    current: () => state.current,
    readiness: () => storeReadiness(state),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reload,
    async stop() {
      stopped = true;
      follower.stop();
      await loads.settled();
    },
  };
}

async function loadOnce(context: Reload, isolation: PolicyStoreOptions['isolation']): Promise<void> {
  const { dir, log, metrics, state } = context;
  const loaded = await loadPoliciesIsolated([dir], isolation);
  const held = holdFilesMidRewrite(loaded, state.current.policies);
  metrics.heldEmpty.set(held.held.length);
  state.heldReason = heldFilesReason(held);
  warnHeldFiles(log, dir, loaded.empty, held);
  if (loaded.errors.length > 0) return refuse(context, loaded.errors);
  state.failure = undefined;
  metrics.successful.set(1);
  metrics.loadedAt.set(Date.now() / 1000);
  publish(context, held.policies, loaded.files.length);
}

/** A set with errors: the last good set stays in force. */
function refuse({ dir, log, metrics, state, rewatch }: Reload, errors: readonly PolicyError[]): void {
  // A removed directory leaves the watcher on a dead inode: watch again once it is back.
  if (errors.some((error) => error.file === dir && error.message.startsWith('cannot read'))) rewatch();
  state.failure = summarizePolicyErrors(errors);
  metrics.errors.inc();
  metrics.successful.set(0);
  log.error(
    { dir, errors: errors.map(formatPolicyError), version: state.current.version },
    state.current.version > 0 ? 'policy reload failed; the last good set stays in force' : 'policies not loaded',
  );
}

/** A good set becomes the next version, unless it is the set in force. */
function publish({ dir, log, metrics, state, listeners }: Reload, policies: SchedulingPolicy[], files: number): void {
  const text = JSON.stringify(policies);
  if (text === state.currentText && state.current.version > 0) return;
  state.current = { version: state.current.version + 1, policies };
  state.currentText = text;
  metrics.loaded.set(policies.length);
  log.info(
    { dir, version: state.current.version, policies: policies.map((policy) => policy.name), files },
    'policies loaded',
  );
  notifyAll(log, listeners, state.current);
}

function storeReadiness({ current, failure, heldReason }: StoreState): Readiness {
  if (current.version === 0) return { ready: false, reason: `policies not loaded: ${failure ?? 'loading'}` };
  const failed =
    failure === undefined ? undefined : `last reload failed: ${failure}; serving policy set version ${current.version}`;
  const reason = [failed, heldReason].filter((part) => part !== undefined).join('; ');
  return reason === '' ? { ready: true } : { ready: true, reason };
}

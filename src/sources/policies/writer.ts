// What topogate writes back to the cluster about its policies: the
// SchedulingPolicy status (Ready, observedGeneration) whenever the objects or
// the policy files change, and, when asked, a background audit every
// interval written as PolicyReports. One replica writes: the holder of a Lease.

import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { SCHEDULING_POLICY } from '../../api/v1alpha1/schedulingpolicy.ts';
import type { KubeObject } from '../../kube/types.ts';
import { describeKubeError } from '../../kube-client/errors.ts';
import type { LeaderElection } from '../../kube-client/lease.ts';
import { BackgroundAudit, type BackgroundAuditOptions } from './backgroundAudit.ts';
import { statusUpdates } from '../../policy/status.ts';
import type { SchedulingPolicy } from '../../policy/types.ts';

/** After a failed write, the next attempt. */
const RETRY_MS = 5_000;
/** Changes arriving together are written together. */
const SETTLE_MS = 100;

export interface PolicyWriterOptions extends BackgroundAuditOptions {
  /** The SchedulingPolicy objects as watched (their status included). */
  readonly objects: () => readonly KubeObject[];
  /** The policies from files: an object may not take one of their names. */
  readonly files: () => readonly SchedulingPolicy[];
  /** Calls the listener when the objects, the files or the model change; answers the unsubscribe. */
  readonly subscribe: (listener: () => void) => () => void;
  readonly elect: (callbacks: {
    onStartedLeading(): void;
    onStoppedLeading(): void;
  }) => Pick<LeaderElection, 'isLeader' | 'stop'>;
  /** Background audit every this many ms; undefined: none. */
  readonly auditIntervalMs?: number;
}

export function startPolicyWriter(options: PolicyWriterOptions): { stop(): Promise<void> } {
  const writeStatus = statusWriter(options);
  const backgroundAudit = new BackgroundAudit(options);
  let statusTimer: NodeJS.Timeout | undefined;
  let auditTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;

  const scheduleStatus = (delayMs = SETTLE_MS) => {
    if (statusTimer === undefined && !stopped)
      statusTimer = setTimeout(() => {
        statusTimer = undefined;
        writing = writing.then(() => (election.isLeader() ? writeStatus(() => scheduleStatus(RETRY_MS)) : undefined));
      }, delayMs);
  };
  const scheduleAudit = (delayMs: number) => {
    if (options.auditIntervalMs === undefined || stopped) return;
    auditTimer = setTimeout(() => {
      writing = writing
        .then(() => (election.isLeader() ? backgroundAudit.run() : undefined))
        .finally(() => scheduleAudit(options.auditIntervalMs!));
    }, delayMs);
    auditTimer.unref();
  };

  const election = options.elect({
    onStartedLeading: () => {
      scheduleStatus(0);
      clearTimeout(auditTimer);
      scheduleAudit(0);
    },
    onStoppedLeading: () => clearTimeout(auditTimer),
  });
  const unsubscribe = options.subscribe(() => scheduleStatus());
  return {
    async stop() {
      stopped = true;
      unsubscribe();
      clearTimeout(statusTimer);
      clearTimeout(auditTimer);
      await writing;
      await election.stop();
    },
  };
}

/** Writes the status of every SchedulingPolicy object whose status is not what it should be; `failed` per failure. */
function statusWriter({ config, log, objects, files }: PolicyWriterOptions): (failed: () => void) => Promise<void> {
  const api = config.makeApiClient(CustomObjectsApi);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const { group, version, plural } = SCHEDULING_POLICY;
  return async (failed) => {
    for (const [name, status] of statusUpdates(objects(), files(), Date.now())) {
      try {
        await api.patchClusterCustomObjectStatus({ group, version, plural, name, body: { status } }, mergePatch);
        log.info({ policy: name, ready: status.conditions[0]?.status }, 'SchedulingPolicy status written');
      } catch (error) {
        log.warn(
          { policy: name },
          `writing the status of SchedulingPolicy ${name} failed: ${describeKubeError(error)}`,
        );
        failed();
      }
    }
  };
}

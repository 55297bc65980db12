// What topogate writes back to the cluster about its policies: the
// SchedulingPolicy status (Ready, observedGeneration) whenever the objects or
// the policy files change, and, when asked, a background audit every
// interval written as PolicyReports. One replica writes: the holder of a Lease.

import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { SCHEDULING_POLICY } from '../../api/v1alpha1/schedulingpolicy.ts';
import type { KubeObject, Pod } from '../../kube/types.ts';
import { describeKubeError } from '../../kube-client/errors.ts';
import type { LeaderElection } from '../../kube-client/lease.ts';
import { PolicyReportsNotServed } from './reports.ts';
import type { TopologySnapshot } from '../../topology/model.ts';
import { auditCluster } from '../../policy/audit.ts';
import { compile } from '../../policy/compiler.ts';
import { policyReports } from '../../policy/policyReport.ts';
import { statusUpdates } from '../../policy/status.ts';
import type { SchedulingPolicy } from '../../policy/types.ts';

/** After a failed write, the next attempt. */
const RETRY_MS = 5_000;
/** Changes arriving together are written together. */
const SETTLE_MS = 100;

export interface PolicyWriterOptions {
  readonly config: KubeConfig;
  /** The SchedulingPolicy objects as watched (their status included). */
  readonly objects: () => readonly KubeObject[];
  /** The policies from files: an object may not take one of their names. */
  readonly files: () => readonly SchedulingPolicy[];
  readonly policies: () => readonly SchedulingPolicy[];
  readonly snapshot: () => TopologySnapshot;
  /** Calls the listener when the objects, the files or the model change; answers the unsubscribe. */
  readonly subscribe: (listener: () => void) => () => void;
  readonly elect: (callbacks: {
    onStartedLeading(): void;
    onStoppedLeading(): void;
  }) => Pick<LeaderElection, 'isLeader' | 'stop'>;
  /** Background audit every this many ms; undefined: none. */
  readonly auditIntervalMs?: number;
  readonly maxSourceAgeMs: number;
  readonly list: {
    pods(config: KubeConfig): Promise<Pod[]>;
    workloads(config: KubeConfig): Promise<KubeObject[]>;
    writeReports(config: KubeConfig, reports: readonly KubeObject[]): Promise<number>;
  };
  readonly log: Logger;
}

export function startPolicyWriter(options: PolicyWriterOptions): { stop(): Promise<void> } {
  const { config, log } = options;
  const api = config.makeApiClient(CustomObjectsApi);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const { group, version, plural } = SCHEDULING_POLICY;
  let statusTimer: NodeJS.Timeout | undefined;
  let auditTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let reported = new Set<string>();
  let notServedSaid = false;
  let stopped = false;

  const scheduleStatus = (delayMs = SETTLE_MS) => {
    if (statusTimer === undefined && !stopped)
      statusTimer = setTimeout(() => {
        statusTimer = undefined;
        writing = writing.then(writeStatus);
      }, delayMs);
  };

  async function writeStatus(): Promise<void> {
    if (!election.isLeader()) return;
    const updates = statusUpdates(options.objects(), options.files(), Date.now());
    for (const [name, status] of updates) {
      try {
        await api.patchClusterCustomObjectStatus({ group, version, plural, name, body: { status } }, mergePatch);
        log.info({ policy: name, ready: status.conditions[0]?.status }, 'SchedulingPolicy status written');
      } catch (error) {
        log.warn(
          { policy: name },
          `writing the status of SchedulingPolicy ${name} failed: ${describeKubeError(error)}`,
        );
        scheduleStatus(RETRY_MS);
      }
    }
  }

  async function audit(): Promise<void> {
    if (!election.isLeader()) return;
    try {
      const started = Date.now();
      const [pods, workloads] = await Promise.all([options.list.pods(config), options.list.workloads(config)]);
      const compiled = compile(options.policies(), options.snapshot());
      const report = auditCluster(pods, workloads, compiled, { now: started, maxSourceAgeMs: options.maxSourceAgeMs });
      const namespaces = new Set(report.results.map((result) => result.pod.namespace));
      // A namespace whose results are all gone gets an empty report rather than a stale one.
      const cleared = [...reported].filter((namespace) => !namespaces.has(namespace));
      const written = await options.list.writeReports(config, policyReports(report.results, started, cleared));
      reported = namespaces;
      notServedSaid = false;
      log.info(
        { pods: pods.length, workloads: workloads.length, namespaces: namespaces.size, ms: Date.now() - started },
        written > 0
          ? `background audit: ${written} PolicyReports written`
          : 'background audit: no Pod matched a policy, so no PolicyReport was written',
      );
    } catch (error) {
      if (!(error instanceof PolicyReportsNotServed))
        return log.warn(`background audit failed: ${describeKubeError(error)}`);
      // Said once, not every interval: installing the CRD is the operator's choice.
      if (!notServedSaid) log.warn(`background audit: ${error.message}; trying again every interval`);
      notServedSaid = true;
    }
  }

  const scheduleAudit = (delayMs: number) => {
    if (options.auditIntervalMs === undefined || stopped) return;
    auditTimer = setTimeout(() => {
      writing = writing.then(audit).finally(() => scheduleAudit(options.auditIntervalMs!));
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

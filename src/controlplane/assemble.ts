// The ControlPlane status from what the collector holds: each source's
// scrapes over the window (figures are the newest scrape less the window's
// baseline), the Lease holders, the watch samples, and the topology snapshot
// (etcd members, their Nodes, zones and the zones' RTT). Pure.

import { etcdMetricsUrl } from '../topology/etcd/metrics-url.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import type { ApiServerScrape } from './apiserver.ts';
import type { EtcdScrape } from './etcd.ts';
import { findings, type FindingLimits } from './findings.ts';
import { quantile } from '../stats/order.ts';
import { observations, quantileOf, since, toMs, type Histogram } from './histogram.ts';
import { placeLeader, placeNode } from './placement.ts';
import type { SchedulerScrape } from './scheduler.ts';
import type { ControlPlaneSource, ControlPlaneStatus, EtcdMemberStatus, SourceAge } from '../ports/controlplane.ts';
import type { WindowView } from './window.ts';

export interface LeaseHolders {
  readonly scheduler?: string;
  readonly controllerManager?: string;
}

export interface CollectedState {
  readonly now: number;
  readonly windowMs: number;
  readonly webhookName: string;
  readonly apiServer: WindowView<ApiServerScrape>;
  /** By etcdMetricsUrl of the metrics URL. */
  readonly etcd: ReadonlyMap<string, WindowView<EtcdScrape>>;
  /** Undefined when no scheduler metrics URL is configured. */
  readonly scheduler?: WindowView<SchedulerScrape>;
  readonly leases: WindowView<LeaseHolders>;
  readonly watch: { readonly samplesMs: readonly number[]; readonly observedAt?: number; readonly error?: string };
  readonly limits?: FindingLimits;
}

export function assembleStatus(state: CollectedState, snapshot: TopologySnapshot): ControlPlaneStatus {
  const apiServer = state.apiServer.newest?.value;
  const apiBase = state.apiServer.baseline?.value;
  const { newest, baseline } = state.apiServer;
  const windowSeconds = Math.round((newest && baseline ? newest.at - baseline.at : state.windowMs) / 1000);
  const holders = state.leases.newest?.value;
  const scheduler = state.scheduler?.newest?.value;
  const schedulerBase = state.scheduler?.baseline?.value;
  const etcdMembers = etcdStatus(state, snapshot);
  const figures: Omit<ControlPlaneStatus, 'findings'> = {
    observedAt: new Date(state.now).toISOString(),
    windowSeconds,
    ...(apiServer &&
      apiBase && {
        apiServer: {
          ...p99('writeP99Ms', apiServer.write, apiBase.write),
          webhook: {
            failOpen5m: Math.max(0, apiServer.webhook.failOpen - apiBase.webhook.failOpen),
            requests5m: Math.max(0, apiServer.webhook.requests - apiBase.webhook.requests),
            ...p99('admissionP99Ms', apiServer.webhook.admission, apiBase.webhook.admission),
          },
        },
      }),
    ...(etcdMembers.length > 0 && {
      etcd: {
        ...(snapshot.etcd.leader && { leader: snapshot.etcd.leader.name }),
        members: etcdMembers,
      },
    }),
    ...((scheduler || holders?.scheduler) && {
      scheduler: {
        ...(holders?.scheduler && { leader: placeLeader(snapshot, holders.scheduler, 'kube-scheduler') }),
        ...(scheduler && schedulerBase && p99('attemptP99Ms', scheduler.attempt, schedulerBase.attempt)),
        ...(scheduler && schedulerBase && p99('bindP99Ms', scheduler.bind, schedulerBase.bind)),
      },
    }),
    ...(holders?.controllerManager && {
      controllerManager: {
        leader: placeLeader(snapshot, holders.controllerManager, 'kube-controller-manager'),
      },
    }),
    ...(state.watch.samplesMs.length > 0 && {
      watch: {
        e2eP50Ms: tenths(quantile(state.watch.samplesMs, 0.5)),
        e2eP99Ms: tenths(quantile(state.watch.samplesMs, 0.99)),
        samples: state.watch.samplesMs.length,
      },
    }),
    sources: sourceAges(state),
  };
  return { ...figures, findings: findings(figures, snapshot.network, state.webhookName, state.limits) };
}

/** Members as the topology knows them (leader, Node, peers' RTT), with their disks' figures from the window. */
function etcdStatus(state: CollectedState, snapshot: TopologySnapshot): EtcdMemberStatus[] {
  return snapshot.etcd.members.map((member) => {
    const view = member.endpoint === undefined ? undefined : state.etcd.get(etcdMetricsUrl(member.endpoint));
    const newest = view?.newest?.value;
    const base = view?.baseline?.value;
    return {
      name: member.name,
      ...placeNode(snapshot, member.nodeName),
      isLeader: member.isLeader,
      ...(newest && base && p99('walFsyncP99Ms', newest.walFsync, base.walFsync)),
      ...(newest && base && p99('backendCommitP99Ms', newest.backendCommit, base.backendCommit)),
      peerRttMs: member.peerRttMs,
    };
  });
}

/** `{[key]: p99 in ms}` over the window, or nothing when the window observed nothing. */
function p99<K extends string>(
  key: K,
  newest: Histogram | undefined,
  baseline: Histogram | undefined,
): Partial<Record<K, number>> {
  if (!newest) return {};
  const window = since(newest, baseline);
  const ms = observations(window) > 0 ? toMs(quantileOf(window, 0.99)) : undefined;
  return ms === undefined ? {} : ({ [key]: ms } as Partial<Record<K, number>>);
}

/** Milliseconds to 0.1 ms, as the histograms' figures are. */
function tenths(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function sourceAges(state: CollectedState): Partial<Record<ControlPlaneSource, SourceAge>> {
  const age = (observedAt: number | undefined, error: string | undefined): SourceAge => ({
    ...(observedAt !== undefined && { observedAt: new Date(observedAt).toISOString() }),
    ...(error !== undefined && { error }),
  });
  const etcdViews = [...state.etcd.values()];
  const etcdSeen = etcdViews.map((view) => view.observedAt ?? 0).filter((at) => at > 0);
  const etcdErrors = etcdViews.flatMap((view) => (view.error === undefined ? [] : [view.error]));
  return {
    apiServer: age(state.apiServer.observedAt, state.apiServer.error),
    ...(etcdViews.length > 0 && {
      etcd: age(etcdSeen.length > 0 ? Math.min(...etcdSeen) : undefined, etcdErrors.join('; ') || undefined),
    }),
    ...(state.scheduler && { scheduler: age(state.scheduler.observedAt, state.scheduler.error) }),
    leases: age(state.leases.observedAt, state.leases.error),
    watch: age(state.watch.observedAt, state.watch.error),
  };
}

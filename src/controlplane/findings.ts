// What an operator should fix in the control plane, in plain words, most
// serious first: a pure function of the status and the zones' RTT.

import type { NetworkModel } from '../topology/model.ts';
import type { ControlPlaneStatus, EtcdMemberStatus, LeaderStatus } from '../ports/controlplane.ts';

export interface FindingLimits {
  /** etcd's guidance: WAL fsync p99 under 10 ms. */
  readonly walFsyncP99Ms: number;
  /** etcd's guidance: backend commit p99 under 25 ms. */
  readonly backendCommitP99Ms: number;
  /** Kubernetes' API call SLO: mutating calls' p99 within 1 s. */
  readonly writeP99Ms: number;
  /** Binding is one API write: far above the write p99 of a healthy cluster. */
  readonly bindP99Ms: number;
  /** A change seen by watchers this late makes every controller late by as much. */
  readonly watchP99Ms: number;
  /** A leader whose zone is this far (RTT) from the etcd leader's pays it on every request. */
  readonly leaderRttMs: number;
}

export const DEFAULT_LIMITS: FindingLimits = {
  walFsyncP99Ms: 10,
  backendCommitP99Ms: 25,
  writeP99Ms: 1000,
  bindP99Ms: 100,
  watchP99Ms: 1000,
  leaderRttMs: 2,
};

type Figures = Omit<ControlPlaneStatus, 'findings'>;

interface Finding {
  /** Lower is more serious. */
  readonly rank: number;
  readonly text: string;
}

export function findings(
  status: Figures,
  network: NetworkModel | undefined,
  webhookName: string,
  limits: FindingLimits = DEFAULT_LIMITS,
): string[] {
  const found: Finding[] = [
    ...etcdLeadership(status),
    ...sharedZones(status.etcd?.members ?? []),
    ...failOpen(status, webhookName),
    ...etcdDisk(status.etcd?.members ?? [], limits),
    ...slow(
      status.apiServer?.writeP99Ms,
      limits.writeP99Ms,
      5,
      (ms, limit) => `the API server's write p99 is ${ms} ms, over the ${limit} ms of Kubernetes' API SLO`,
    ),
    ...farLeaders(status, network, limits),
    ...slow(
      status.scheduler?.bindP99Ms,
      limits.bindP99Ms,
      7,
      (ms, limit) =>
        `the scheduler's bind p99 is ${ms} ms (over ${limit} ms): Pods wait that long after their Node is chosen`,
    ),
    ...slow(
      status.watch?.e2eP99Ms,
      limits.watchP99Ms,
      8,
      (ms, limit) =>
        `watch events reach clients ${ms} ms (p99) after the write (over ${limit} ms): every controller reacts that late`,
    ),
  ];
  return found.sort((a, b) => a.rank - b.rank).map((finding) => finding.text);
}

function etcdLeadership(status: Figures): Finding[] {
  const members = status.etcd?.members ?? [];
  if (members.length === 0 || status.etcd?.leader !== undefined) return [];
  return [{ rank: 0, text: `no etcd member of ${members.length} is leader: the cluster cannot write` }];
}

/** A zone that holds enough members that losing it loses quorum. */
function sharedZones(members: readonly EtcdMemberStatus[]): Finding[] {
  if (members.length < 2) return [];
  const quorum = Math.floor(members.length / 2) + 1;
  const byZone = new Map<string, string[]>();
  for (const member of members) {
    if (member.zone) byZone.set(member.zone, [...(byZone.get(member.zone) ?? []), member.name]);
  }
  const found: Finding[] = [];
  for (const [zone, names] of byZone) {
    if (names.length < 2 || members.length - names.length >= quorum) continue;
    found.push({
      rank: 1,
      text: `etcd members ${list(names.toSorted())} share zone ${zone}: one zone outage loses quorum`,
    });
  }
  return found;
}

function failOpen(status: Figures, webhookName: string): Finding[] {
  const count = status.apiServer?.webhook.failOpen5m ?? 0;
  if (count <= 0) return [];
  return [
    {
      rank: 2,
      text: `the API server failed open on ${webhookName} ${count} times in ${minutes(status.windowSeconds)}: Pods were placed without policies (check caBundle and the serving certificate's names)`,
    },
  ];
}

function etcdDisk(members: readonly EtcdMemberStatus[], limits: FindingLimits): Finding[] {
  const found: Finding[] = [];
  for (const member of members) {
    if (member.walFsyncP99Ms !== undefined && member.walFsyncP99Ms > limits.walFsyncP99Ms) {
      found.push({
        rank: 3,
        text: `etcd member ${member.name}'s WAL fsync p99 is ${member.walFsyncP99Ms} ms, over etcd's guidance of ${limits.walFsyncP99Ms} ms: its disk is too slow or shared, which costs every write and risks leader elections`,
      });
    }
    if (member.backendCommitP99Ms !== undefined && member.backendCommitP99Ms > limits.backendCommitP99Ms) {
      found.push({
        rank: 4,
        text: `etcd member ${member.name}'s backend commit p99 is ${member.backendCommitP99Ms} ms, over etcd's guidance of ${limits.backendCommitP99Ms} ms: its disk is too slow or shared`,
      });
    }
  }
  return found;
}

function farLeaders(status: Figures, network: NetworkModel | undefined, limits: FindingLimits): Finding[] {
  const etcdLeader = status.etcd?.members.find((member) => member.isLeader);
  if (!network || !etcdLeader?.zone) return [];
  const leaders: [string, LeaderStatus | undefined][] = [
    ['scheduler', status.scheduler?.leader],
    ['controller manager', status.controllerManager?.leader],
  ];
  const found: Finding[] = [];
  for (const [what, leader] of leaders) {
    if (!leader?.zone || leader.zone === etcdLeader.zone) continue;
    const rtt = network.rttMs(leader.zone, etcdLeader.zone);
    if (rtt === undefined || rtt <= limits.leaderRttMs) continue;
    found.push({
      rank: 6,
      text: `the ${what}'s leader (${leader.nodeName}, zone ${leader.zone}) is ${rtt} ms from the etcd leader's zone ${etcdLeader.zone}: each of its writes pays that twice (move it, or let a candidate near the etcd leader lead)`,
    });
  }
  return found;
}

function slow(
  value: number | undefined,
  limit: number,
  rank: number,
  say: (ms: number, limit: number) => string,
): Finding[] {
  return value !== undefined && value > limit ? [{ rank, text: say(value, limit) }] : [];
}

function list(names: readonly string[]): string {
  return names.length <= 2 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function minutes(seconds: number): string {
  return seconds >= 60 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds)} s`;
}

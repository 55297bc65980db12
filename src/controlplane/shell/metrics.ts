// The control plane's figures as topogate metrics (topogate_controlplane_…),
// read from the latest status when Prometheus scrapes. Labels are bounded:
// members (etcd has at most 7), components, sources; never a node per label.

import { Gauge, type Registry } from 'prom-client';
import type { ControlPlaneSource, ControlPlaneStatus } from '../../ports/controlplane.ts';

type Sample<L extends string> = readonly [Partial<Record<L, string>>, number | undefined];

interface GaugeSpec {
  /** After `topogate_controlplane_`. */
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** The samples of a status; an undefined value is left out. `clock`: now, in ms. */
  readonly values: (status: ControlPlaneStatus, clock: () => number) => readonly Sample<string>[];
}

const gauge = <L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  values: (status: ControlPlaneStatus, clock: () => number) => readonly Sample<L>[],
): GaugeSpec => ({ name, help, labelNames, values });

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);

const GAUGES: readonly GaugeSpec[] = [
  gauge('apiserver_write_p99_seconds', 'API server POST/PUT/PATCH/DELETE latency p99 over the window.', [], (s) => [
    [{}, seconds(s.apiServer?.writeP99Ms)],
  ]),
  gauge('webhook_fail_open', "Times the API server failed open on topogate's webhook in the window.", [], (s) => [
    [{}, s.apiServer?.webhook.failOpen5m],
  ]),
  gauge('webhook_admission_p99_seconds', "The API server's admission duration p99 for topogate's webhook.", [], (s) => [
    [{}, seconds(s.apiServer?.webhook.admissionP99Ms)],
  ]),
  gauge('etcd_leader', '1 for the etcd member that leads, 0 for the others.', ['member'], (s) =>
    (s.etcd?.members ?? []).map((m) => [{ member: m.name }, m.isLeader ? 1 : 0]),
  ),
  gauge('etcd_wal_fsync_p99_seconds', "An etcd member's WAL fsync p99 over the window.", ['member'], (s) =>
    (s.etcd?.members ?? []).map((m) => [{ member: m.name }, seconds(m.walFsyncP99Ms)]),
  ),
  gauge('etcd_backend_commit_p99_seconds', "An etcd member's backend commit p99 over the window.", ['member'], (s) =>
    (s.etcd?.members ?? []).map((m) => [{ member: m.name }, seconds(m.backendCommitP99Ms)]),
  ),
  gauge('etcd_peer_rtt_seconds', "An etcd member's mean RTT to a peer.", ['member', 'peer'], (s) =>
    (s.etcd?.members ?? []).flatMap((m) =>
      Object.entries(m.peerRttMs).map(([peer, ms]): Sample<'member' | 'peer'> => [
        { member: m.name, peer },
        seconds(ms),
      ]),
    ),
  ),
  gauge('scheduler_attempt_p99_seconds', "The scheduler's scheduling attempt p99 over the window.", [], (s) => [
    [{}, seconds(s.scheduler?.attemptP99Ms)],
  ]),
  gauge('scheduler_bind_p99_seconds', "The scheduler's bind p99 over the window.", [], (s) => [
    [{}, seconds(s.scheduler?.bindP99Ms)],
  ]),
  gauge(
    'leader',
    "1 for each leader's placement: component (etcd, kube-scheduler, kube-controller-manager), node, zone.",
    ['component', 'node', 'zone'],
    (s) => {
      const etcd = s.etcd?.members.find((m) => m.isLeader);
      const leaders = [
        ['etcd', etcd],
        ['kube-scheduler', s.scheduler?.leader],
        ['kube-controller-manager', s.controllerManager?.leader],
      ] as const;
      return leaders.flatMap(([component, leader]) =>
        leader ? [[{ component, node: leader.nodeName ?? '', zone: leader.zone ?? '' }, 1] as const] : [],
      );
    },
  ),
  gauge(
    'watch_e2e_seconds',
    "Write-to-watch-event latency of topogate's heartbeat Lease, by quantile.",
    ['quantile'],
    (s) => [
      [{ quantile: '0.5' }, seconds(s.watch?.e2eP50Ms)],
      [{ quantile: '0.99' }, seconds(s.watch?.e2eP99Ms)],
    ],
  ),
  gauge('findings', 'Findings about the control plane an operator should act on.', [], (s) => [
    [{}, s.findings.length],
  ]),
  gauge('source_age_seconds', 'Seconds since a control-plane source last answered.', ['source'], (s, clock) =>
    Object.entries(s.sources).map(([source, age]) => [
      { source: source as ControlPlaneSource },
      age?.observedAt === undefined ? undefined : (clock() - Date.parse(age.observedAt)) / 1000,
    ]),
  ),
];

export function registerControlPlaneMetrics(
  registry: Registry,
  current: () => ControlPlaneStatus,
  clock: () => number = Date.now,
): void {
  for (const { name, help, labelNames, values } of GAUGES)
    new Gauge({
      name: `topogate_controlplane_${name}`,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const [labels, value] of values(current(), clock)) if (value !== undefined) this.set(labels, value);
      },
    });
}

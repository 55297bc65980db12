// ControlPlane's status for a person at a terminal: one line per figure,
// then the findings.

import type { ControlPlaneStatus, LeaderStatus, Placement } from '../ports/controlplane.ts';

export function describeStatus(status: ControlPlaneStatus): string {
  const ms = (value: number | undefined) => (value === undefined ? '-' : `${value} ms`);
  const where = (place: Placement | undefined) =>
    place?.nodeName ? ` on ${place.nodeName}${place.zone ? ` (${place.zone})` : ''}` : '';
  const leader = (lead: LeaderStatus | undefined) => (lead ? `${lead.holder}${where(lead)}` : '-');
  const lines = [
    `control plane, over the last ${status.windowSeconds} s (observed ${status.observedAt}):`,
    `  API server   write p99 ${ms(status.apiServer?.writeP99Ms)}; webhook admission p99 ${ms(status.apiServer?.webhook.admissionP99Ms)}, failed open ${status.apiServer?.webhook.failOpen5m ?? '-'} of ${status.apiServer?.webhook.requests5m ?? '-'} calls`,
    `  etcd         leader ${status.etcd?.leader ?? '-'}`,
    ...(status.etcd?.members ?? []).map(
      (member) =>
        `    ${member.isLeader ? '*' : ' '} ${member.name}${where(member)}: WAL fsync p99 ${ms(member.walFsyncP99Ms)}, backend commit p99 ${ms(member.backendCommitP99Ms)}, peer RTT ${
          Object.entries(member.peerRttMs)
            .map(([peer, rtt]) => `${peer} ${rtt} ms`)
            .join(', ') || '-'
        }`,
    ),
    `  scheduler    leader ${leader(status.scheduler?.leader)}; attempt p99 ${ms(status.scheduler?.attemptP99Ms)}, bind p99 ${ms(status.scheduler?.bindP99Ms)}`,
    `  controller manager leader ${leader(status.controllerManager?.leader)}`,
    `  watch        end-to-end p50 ${ms(status.watch?.e2eP50Ms)}, p99 ${ms(status.watch?.e2eP99Ms)} (${status.watch?.samples ?? 0} samples)`,
    ...Object.entries(status.sources).flatMap(([source, age]) =>
      age?.error ? [`  not measured: ${source}: ${age.error}`] : [],
    ),
    status.findings.length === 0 ? 'findings: none' : 'findings:',
    ...status.findings.map((finding) => `  - ${finding}`),
  ];
  return `${lines.join('\n')}\n`;
}

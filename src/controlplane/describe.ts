// ControlPlane's status as `topogate controlplane --output` prints it: for a person at a terminal one line per
// figure, then the findings; as JSON exactly the status object; as YAML that kubectl reads back the same.

import { stringifyForKubectl } from '../kube/yaml.ts';
import type { ControlPlaneStatus, LeaderStatus, Placement } from '../ports/controlplane.ts';

const OUTPUTS = ['json', 'yaml', 'text'] as const;
export type StatusOutput = (typeof OUTPUTS)[number];

export const isStatusOutput = (value: string): value is StatusOutput => (OUTPUTS as readonly string[]).includes(value);

export function formatStatus(status: ControlPlaneStatus, output: StatusOutput): string {
  if (output === 'json') return `${JSON.stringify(status, null, 2)}\n`;
  // A zone named `on` or `no` is a string, not YAML 1.1's boolean: kubectl must read it back as it was.
  if (output === 'yaml') return stringifyForKubectl(status);
  return describeStatus(status);
}

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

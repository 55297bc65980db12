// The control plane's measured figures as the view lists them (docs/view.md,
// etcd members and leader with the control-plane figures): one row a figure,
// read from the same ControlPlane status `topogate controlplane` prints. A figure
// not measured in the window is left out, as the status leaves it out.

import type { ControlPlaneStatus } from '../ports/controlplane.ts';

export interface FigureRow {
  readonly figure: string;
  readonly valueMs: number;
}

export interface LeaderRow {
  readonly component: string;
  readonly holder: string;
  readonly node?: string;
  readonly zone?: string;
}

export interface ControlPlaneFigures {
  /** Seconds since the figures were taken. */
  readonly ageSeconds: number;
  readonly windowSeconds: number;
  readonly figures: readonly FigureRow[];
  /** Where the scheduler's and the controller manager's leaders run, by their Leases. */
  readonly leaders: readonly LeaderRow[];
  readonly findings: readonly string[];
  /** Sources that do not answer now, with why. */
  readonly unanswered: readonly { readonly source: string; readonly error: string }[];
}

export function controlPlaneFigures(status: ControlPlaneStatus, now: number): ControlPlaneFigures {
  const rows: [string, number | undefined][] = [
    ['API server write p99', status.apiServer?.writeP99Ms],
    ["API server's calls to topogate p99", status.apiServer?.webhook.admissionP99Ms],
    ...(status.etcd?.members ?? []).flatMap((member): [string, number | undefined][] => [
      [`etcd ${member.name} WAL fsync p99`, member.walFsyncP99Ms],
      [`etcd ${member.name} backend commit p99`, member.backendCommitP99Ms],
    ]),
    ['scheduler attempt p99', status.scheduler?.attemptP99Ms],
    ['scheduler bind p99', status.scheduler?.bindP99Ms],
    ['watch end-to-end p50', status.watch?.e2eP50Ms],
    ['watch end-to-end p99', status.watch?.e2eP99Ms],
  ];
  return {
    ageSeconds: Math.max(0, Math.round((now - Date.parse(status.observedAt)) / 1000)),
    windowSeconds: status.windowSeconds,
    figures: rows.flatMap(([figure, valueMs]) => (valueMs === undefined ? [] : [{ figure, valueMs }])),
    leaders: (
      [
        ['kube-scheduler', status.scheduler?.leader],
        ['kube-controller-manager', status.controllerManager?.leader],
      ] as const
    ).flatMap(([component, leader]) =>
      leader === undefined
        ? []
        : [
            {
              component,
              holder: leader.holder,
              ...(leader.nodeName !== undefined && { node: leader.nodeName }),
              ...(leader.zone !== undefined && { zone: leader.zone }),
            },
          ],
    ),
    findings: status.findings,
    unanswered: Object.entries(status.sources).flatMap(([source, age]) =>
      age?.error === undefined ? [] : [{ source, error: age.error }],
    ),
  };
}

// The control plane's figures as the view lists them: every measured figure a
// row, unmeasured ones left out, leaders where their Leases say, findings and
// unanswered sources as they are.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControlPlaneStatus } from '../../../src/ports/controlplane.ts';
import { controlPlaneFigures } from '../../../src/view/controlPlane.ts';

const status: ControlPlaneStatus = {
  observedAt: '2026-12-03T10:00:00Z',
  windowSeconds: 300,
  apiServer: { writeP99Ms: 41.5, webhook: { failOpen5m: 0, requests5m: 12, admissionP99Ms: 2.5 } },
  etcd: {
    leader: 'etcd-0',
    members: [
      { name: 'etcd-0', isLeader: true, walFsyncP99Ms: 8, backendCommitP99Ms: 12, peerRttMs: {} },
      { name: 'etcd-1', isLeader: false, walFsyncP99Ms: 31, peerRttMs: {} },
    ],
  },
  scheduler: { leader: { holder: 'sched-a_1', nodeName: 'cp-1', zone: 'z1' }, bindP99Ms: 9 },
  controllerManager: { leader: { holder: 'kcm-b_2' } },
  findings: ['etcd-1 fsync p99 31 ms is above etcd\u2019s 10 ms guidance'],
  sources: { apiServer: { observedAt: '2026-12-03T10:00:00Z' }, watch: { error: 'no heartbeat yet' } },
};

describe('the control-plane figures of the view', () => {
  const figures = controlPlaneFigures(status, Date.parse('2026-12-03T10:00:07Z'));

  it('lists each measured figure once, and nothing for what was not measured', () => {
    assert.deepEqual(figures.figures, [
      { figure: 'API server write p99', valueMs: 41.5 },
      { figure: "API server's calls to topogate p99", valueMs: 2.5 },
      { figure: 'etcd etcd-0 WAL fsync p99', valueMs: 8 },
      { figure: 'etcd etcd-0 backend commit p99', valueMs: 12 },
      { figure: 'etcd etcd-1 WAL fsync p99', valueMs: 31 },
      { figure: 'scheduler bind p99', valueMs: 9 },
    ]);
  });

  it('says where each leader runs, its age, its findings and the sources that do not answer', () => {
    assert.deepEqual(figures.leaders, [
      { component: 'kube-scheduler', holder: 'sched-a_1', node: 'cp-1', zone: 'z1' },
      { component: 'kube-controller-manager', holder: 'kcm-b_2' },
    ]);
    assert.equal(figures.ageSeconds, 7);
    assert.equal(figures.windowSeconds, 300);
    assert.deepEqual(figures.findings, status.findings);
    assert.deepEqual(figures.unanswered, [{ source: 'watch', error: 'no heartbeat yet' }]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readApiServerMetrics } from '../../../src/controlplane/apiserver.ts';
import { assembleStatus, type CollectedState } from '../../../src/controlplane/assemble.ts';
import { readEtcdScrape } from '../../../src/controlplane/etcd.ts';
import { readSchedulerMetrics } from '../../../src/controlplane/scheduler.ts';
import { ScrapeWindow } from '../../../src/controlplane/window.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';

/** Cumulative buckets of one series, as a component writes them. */
function buckets(name: string, labels: string, bounds: readonly number[], counts: readonly number[]): string {
  const prefix = labels ? `${labels},` : '';
  return [...bounds, Infinity]
    .map(
      (le, i) =>
        `${name}_bucket{${prefix}le="${le === Infinity ? '+Inf' : le}"} ${counts[Math.min(i, counts.length - 1)]}`,
    )
    .join('\n');
}

const apiText = (writes: readonly number[], failOpen: number, admission: readonly number[]) =>
  [
    buckets('apiserver_request_duration_seconds', 'resource="pods",verb="POST"', [0.005, 0.025, 0.1], writes),
    buckets(
      'apiserver_request_duration_seconds',
      'resource="pods",verb="GET"',
      [0.005, 0.025, 0.1],
      [9000, 9000, 9000],
    ),
    `apiserver_admission_webhook_fail_open_count{name="pods.topogate.dev",type="admit"} ${failOpen}`,
    `apiserver_admission_webhook_fail_open_count{name="other.example.com",type="admit"} 99`,
    `apiserver_admission_webhook_request_total{code="200",name="pods.topogate.dev",operation="CREATE",rejected="false",type="admit"} ${admission.at(-1)}`,
    buckets(
      'apiserver_admission_webhook_admission_duration_seconds',
      'name="pods.topogate.dev",operation="CREATE",rejected="false",type="admit"',
      [0.005, 0.025, 0.1],
      admission,
    ),
  ].join('\n');

const etcdText = (id: string, leader: boolean, fsync: readonly number[]) =>
  [
    `etcd_server_id{server_id="${id}"} 1`,
    `etcd_server_is_leader ${leader ? 1 : 0}`,
    buckets('etcd_disk_wal_fsync_duration_seconds', '', [0.001, 0.008, 0.032], fsync),
    buckets('etcd_disk_backend_commit_duration_seconds', '', [0.001, 0.008, 0.032], [10, 10, 10, 10]),
  ].join('\n');

const schedulerText = (attempts: readonly number[], binds: readonly number[]) =>
  [
    buckets(
      'scheduler_scheduling_attempt_duration_seconds',
      'profile="default-scheduler",result="scheduled"',
      [0.001, 0.01, 0.1],
      attempts,
    ),
    buckets(
      'scheduler_framework_extension_point_duration_seconds',
      'extension_point="Bind",profile="default-scheduler",status="Success"',
      [0.001, 0.01, 0.1],
      binds,
    ),
    buckets(
      'scheduler_framework_extension_point_duration_seconds',
      'extension_point="Filter",profile="default-scheduler",status="Success"',
      [0.001, 0.01, 0.1],
      [500, 500, 500, 500],
    ),
  ].join('\n');

const node = (name: string, zone: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
  status: { addresses: [] },
});

const snapshot = buildSnapshot(
  [
    node('cp-a', 'zone-a'),
    node('cp-b', 'zone-a'),
    node('cp-c', 'zone-c'),
    {
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'EtcdCluster',
      metadata: { name: 'default' },
      status: {
        members: [
          {
            name: 'aa',
            nodeName: 'cp-a',
            endpoint: 'http://10.0.0.1:2381/metrics',
            isLeader: true,
            peerRttMs: { bb: 0.4 },
          },
          {
            name: 'bb',
            nodeName: 'cp-b',
            endpoint: 'http://10.0.0.2:2381/metrics',
            isLeader: false,
            peerRttMs: { aa: 0.4 },
          },
          { name: 'cc', nodeName: 'cp-c', endpoint: 'http://10.0.0.3:2381/metrics', isLeader: false, peerRttMs: {} },
        ],
      },
    },
  ],
  { now: 0 },
);

function collected(): CollectedState {
  const at = Date.parse('2026-12-03T10:00:00Z');
  const api = new ScrapeWindow<NonNullable<ReturnType<typeof readApiServerMetrics>>>(300_000);
  api.add(at, readApiServerMetrics(apiText([100, 100, 100, 100], 2, [10, 10, 10, 10]), 'pods.topogate.dev')!);
  // 100 more writes in the window, 2 of them slower than 25 ms; 5 fail-opens; 20 webhook calls, all fast.
  api.add(at + 60_000, readApiServerMetrics(apiText([190, 198, 200, 200], 7, [30, 30, 30, 30]), 'pods.topogate.dev')!);
  const etcd = new Map(
    [
      ['http://10.0.0.1:2381/metrics', etcdText('aa', true, [0, 0, 0, 0]), etcdText('aa', true, [0, 50, 100, 100])],
      [
        'http://10.0.0.2:2381/metrics',
        etcdText('bb', false, [0, 0, 0, 0]),
        etcdText('bb', false, [100, 100, 100, 100]),
      ],
    ].map(([url, before, after]) => {
      const window = new ScrapeWindow<NonNullable<ReturnType<typeof readEtcdScrape>>>(300_000);
      window.add(at, readEtcdScrape(before!)!);
      window.add(at + 60_000, readEtcdScrape(after!)!);
      return [url!, window.view()] as const;
    }),
  );
  const scheduler = new ScrapeWindow<NonNullable<ReturnType<typeof readSchedulerMetrics>>>(300_000);
  scheduler.add(at, readSchedulerMetrics(schedulerText([0, 0, 0, 0], [0, 0, 0, 0]))!);
  scheduler.add(at + 60_000, readSchedulerMetrics(schedulerText([50, 100, 100, 100], [100, 100, 100, 100]))!);
  const leases = new ScrapeWindow<{ scheduler?: string; controllerManager?: string }>(300_000);
  leases.add(at + 60_000, { scheduler: 'cp-c_1f2e', controllerManager: 'somewhere_9a' });
  return {
    now: at + 60_000,
    windowMs: 300_000,
    webhookName: 'pods.topogate.dev',
    apiServer: api.view(),
    etcd,
    scheduler: scheduler.view(),
    leases: leases.view(),
    watch: { samplesMs: [3, 4, 5, 4, 30], observedAt: at + 59_000 },
  };
}

describe('the ControlPlane status', () => {
  it('takes every figure over the window, and places members and leaders on Nodes and zones', () => {
    const status = assembleStatus(collected(), snapshot);
    assert.equal(status.observedAt, '2026-12-03T10:01:00.000Z');
    assert.equal(status.windowSeconds, 60);
    // 90 of the window's 100 writes under 5 ms, 98 under 25 ms: rank 99 is in (0.025, 0.1].
    assert.deepEqual(status.apiServer, {
      writeP99Ms: 62.5,
      webhook: { failOpen5m: 5, requests5m: 20, admissionP99Ms: 5 },
    });
    assert.equal(status.etcd?.leader, 'aa');
    assert.deepEqual(
      status.etcd?.members,
      [
        {
          name: 'aa',
          nodeName: 'cp-a',
          zone: 'zone-a',
          isLeader: true,
          walFsyncP99Ms: 31.5,
          backendCommitP99Ms: undefined,
          peerRttMs: { bb: 0.4 },
        },
        { name: 'bb', nodeName: 'cp-b', zone: 'zone-a', isLeader: false, walFsyncP99Ms: 1, peerRttMs: { aa: 0.4 } },
        { name: 'cc', nodeName: 'cp-c', zone: 'zone-c', isLeader: false, peerRttMs: {} },
      ].map((member) => Object.fromEntries(Object.entries(member).filter(([, value]) => value !== undefined))),
    );
    assert.deepEqual(status.scheduler, {
      leader: { holder: 'cp-c_1f2e', nodeName: 'cp-c', zone: 'zone-c' },
      attemptP99Ms: 9.8,
      bindP99Ms: 1,
    });
    // The holder's prefix is no Node: placed nowhere, said as it is.
    assert.deepEqual(status.controllerManager, { leader: { holder: 'somewhere_9a' } });
    assert.deepEqual(status.watch, { e2eP50Ms: 4, e2eP99Ms: 30, samples: 5 });
    assert.deepEqual(
      status.findings.map((finding) => finding.slice(0, 30)),
      ['etcd members aa and bb share z', 'the API server failed open on ', "etcd member aa's WAL fsync p99"],
    );
    assert.equal(status.sources.apiServer?.observedAt, '2026-12-03T10:01:00.000Z');
  });

  it('leaves out what was not measured, and says why', () => {
    const state = collected();
    const api = new ScrapeWindow<NonNullable<ReturnType<typeof readApiServerMetrics>>>(300_000);
    api.fail('https://127.0.0.1:6443/metrics: HTTP 403 (topogate is not allowed to get /metrics there)');
    const status = assembleStatus(
      { ...state, apiServer: api.view(), scheduler: undefined, watch: { samplesMs: [], error: 'HTTP 404' } },
      snapshot,
    );
    assert.equal(status.apiServer, undefined);
    assert.equal(status.watch, undefined);
    assert.deepEqual(status.scheduler, { leader: { holder: 'cp-c_1f2e', nodeName: 'cp-c', zone: 'zone-c' } });
    assert.match(status.sources.apiServer?.error ?? '', /HTTP 403/);
    assert.equal(status.sources.watch?.error, 'HTTP 404');
    assert.equal(status.sources.scheduler, undefined);
  });

  it('gives no p99 from a single scrape: a window needs two', () => {
    const state = collected();
    const api = new ScrapeWindow<NonNullable<ReturnType<typeof readApiServerMetrics>>>(300_000);
    api.add(state.now, readApiServerMetrics(apiText([100, 100, 100, 100], 2, [10, 10, 10, 10]), 'pods.topogate.dev')!);
    assert.equal(assembleStatus({ ...state, apiServer: api.view() }, snapshot).apiServer, undefined);
  });
});

describe('the metric readers', () => {
  it('refuse pages that are not what they read', () => {
    assert.equal(readApiServerMetrics('etcd_server_is_leader 1', 'x'), undefined);
    assert.equal(readEtcdScrape('apiserver_request_total 1'), undefined);
    assert.equal(readSchedulerMetrics('etcd_server_is_leader 1'), undefined);
  });
});

describe('a scrape window', () => {
  it('keeps the newest scrape and one at or before the window start', () => {
    const window = new ScrapeWindow<number>(10_000);
    for (const at of [0, 4_000, 8_000, 12_000, 16_000]) window.add(at, at);
    // At 16 s the window starts at 6 s: 4 s is the last scrape at or before it.
    assert.deepEqual(window.view().baseline, { at: 4_000, value: 4_000 });
    assert.deepEqual(window.view().newest, { at: 16_000, value: 16_000 });
    window.fail('timeout');
    assert.equal(window.view().error, 'timeout');
    window.add(20_000, 20_000);
    assert.equal(window.view().error, undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LIMITS, findings } from '../../../src/controlplane/findings.ts';
import type { ControlPlaneStatus, EtcdMemberStatus } from '../../../src/ports/controlplane.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

const network = buildSnapshot(
  [
    networkTopology({
      domainLabel: 'topology.kubernetes.io/zone',
      links: [
        { from: 'a', to: 'b', rttMs: 0.8 },
        { from: 'a', to: 'c', rttMs: 12 },
        { from: 'b', to: 'c', rttMs: 11 },
      ],
    }),
  ],
  { now: 0 },
).network;

const member = (name: string, zone: string, more: Partial<EtcdMemberStatus> = {}): EtcdMemberStatus => ({
  name,
  nodeName: `cp-${name}`,
  zone,
  isLeader: false,
  peerRttMs: {},
  ...more,
});

/** A healthy control plane: three zones, fast disks, nothing failed open. */
function healthy(): Omit<ControlPlaneStatus, 'findings'> {
  return {
    observedAt: '2026-12-03T10:00:00.000Z',
    windowSeconds: 300,
    apiServer: { writeP99Ms: 12, webhook: { failOpen5m: 0, requests5m: 40, admissionP99Ms: 3 } },
    etcd: {
      leader: 'e0',
      members: [member('e0', 'a', { isLeader: true, walFsyncP99Ms: 2 }), member('e1', 'b'), member('e2', 'c')],
    },
    scheduler: { leader: { holder: 'cp-e0_x', nodeName: 'cp-e0', zone: 'a' }, attemptP99Ms: 3, bindP99Ms: 6 },
    controllerManager: { leader: { holder: 'cp-e1_y', nodeName: 'cp-e1', zone: 'b' } },
    watch: { e2eP50Ms: 4, e2eP99Ms: 15, samples: 60 },
    sources: {},
  };
}

describe('control-plane findings', () => {
  it('finds nothing in a healthy control plane', () => {
    assert.deepEqual(findings(healthy(), network, 'pods.topogate.dev'), []);
  });

  it('says when etcd members share a zone whose loss loses quorum', () => {
    const status = healthy();
    const shared = {
      ...status,
      etcd: { leader: 'e0', members: [member('e0', 'a'), member('e1', 'a'), member('e2', 'c')] },
    };
    assert.deepEqual(findings(shared, network, 'pods.topogate.dev'), [
      'etcd members e0 and e1 share zone a: one zone outage loses quorum',
    ]);
    // Five members, two in one zone: three are left, a quorum.
    const five = ['a', 'a', 'b', 'c', 'd'].map((zone, i) => member(`m${i}`, zone));
    assert.deepEqual(findings({ ...status, etcd: { leader: 'm0', members: five } }, network, 'x'), []);
    // Members on no known zone are not counted as sharing one.
    const unplaced = [0, 1, 2].map((i) => ({ name: `m${i}`, isLeader: i === 0, peerRttMs: {} }));
    assert.deepEqual(findings({ ...status, etcd: { leader: 'm0', members: unplaced } }, network, 'x'), []);
  });

  it('says when the API server failed open on the webhook, with the count and the window', () => {
    const status = healthy();
    const failed = { ...status, apiServer: { webhook: { failOpen5m: 212, requests5m: 300 } } };
    assert.deepEqual(findings(failed, network, 'pods.topogate.dev'), [
      "the API server failed open on pods.topogate.dev 212 times in 5 min: Pods were placed without policies (check caBundle and the serving certificate's names)",
    ]);
  });

  it("says when an etcd member's fsync or commit p99 is over etcd's guidance", () => {
    const status = healthy();
    const slow = {
      ...status,
      etcd: {
        leader: 'e0',
        members: [
          member('e0', 'a', { isLeader: true, walFsyncP99Ms: 10 }),
          member('e1', 'b', { walFsyncP99Ms: 34.2, backendCommitP99Ms: 40 }),
          member('e2', 'c', { backendCommitP99Ms: 25 }),
        ],
      },
    };
    const found = findings(slow, network, 'x');
    assert.equal(found.length, 2, found.join('\n'));
    assert.match(found[0]!, /^etcd member e1's WAL fsync p99 is 34\.2 ms, over etcd's guidance of 10 ms/);
    assert.match(found[1]!, /^etcd member e1's backend commit p99 is 40 ms, over etcd's guidance of 25 ms/);
  });

  it("says when a leader's zone is far (RTT) from the etcd leader's", () => {
    const status = healthy();
    const far = { ...status, scheduler: { leader: { holder: 'cp-e2_z', nodeName: 'cp-e2', zone: 'c' } } };
    assert.deepEqual(findings(far, network, 'x'), [
      "the scheduler's leader (cp-e2, zone c) is 12 ms from the etcd leader's zone a: each of its writes pays that twice (move it, or let a candidate near the etcd leader lead)",
    ]);
    // Zone b is 0.8 ms from a: near enough. And with no RTT known, nothing is claimed.
    assert.deepEqual(findings(far, undefined, 'x'), []);
  });

  it('says when binds, writes or watches are slow, and when etcd has no leader', () => {
    const status = healthy();
    const slow = {
      ...status,
      apiServer: { writeP99Ms: 1500, webhook: { failOpen5m: 0, requests5m: 0 } },
      scheduler: { bindP99Ms: 250 },
      watch: { e2eP50Ms: 300, e2eP99Ms: 2500, samples: 60 },
      etcd: { members: [member('e0', 'a'), member('e1', 'b'), member('e2', 'c')] },
    };
    const found = findings(slow, network, 'x');
    assert.deepEqual(
      found.map((text) => text.split(' ').slice(0, 4).join(' ')),
      ['no etcd member of', "the API server's write", "the scheduler's bind p99", 'watch events reach clients'],
    );
    assert.match(found[2]!, /250 ms \(over 100 ms\)/);
  });

  it('orders findings most serious first', () => {
    const status = healthy();
    const many = {
      ...status,
      apiServer: { webhook: { failOpen5m: 3, requests5m: 3 } },
      etcd: {
        leader: 'e0',
        members: [member('e0', 'a', { isLeader: true, walFsyncP99Ms: 50 }), member('e1', 'a'), member('e2', 'c')],
      },
      watch: { e2eP50Ms: 300, e2eP99Ms: 2500, samples: 60 },
    };
    const found = findings(many, network, 'x', DEFAULT_LIMITS);
    assert.deepEqual(
      found.map((text) => text.slice(0, 20)),
      ['etcd members e0 and ', 'the API server faile', "etcd member e0's WAL", 'watch events reach c'],
    );
  });
});

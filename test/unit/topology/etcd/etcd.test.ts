import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../../../src/kube/types.ts';
import { buildSnapshot } from '../../../../src/topology/build.ts';
import { readEtcdMetrics } from '../../../../src/topology/etcd/metrics.ts';
import { etcdClusterObject } from '../../../../src/topology/etcd/place.ts';
import { parsePrometheusText } from '../../../../src/topology/etcd/prometheus.ts';
import { loadTopologyPaths } from '../../../../src/sources/topology/files.ts';

// As etcd 3.5 writes them (trimmed to the families topogate reads, plus neighbours).
const leaderText = `# HELP etcd_server_has_leader Whether or not a leader exists. 1 is existence, 0 is not.
# TYPE etcd_server_has_leader gauge
etcd_server_has_leader 1
# HELP etcd_server_id Server or member ID in hexadecimal format. 1 for 'server_id' label with current ID.
# TYPE etcd_server_id gauge
etcd_server_id{server_id="8e9e05c52164694d"} 1
# HELP etcd_server_is_leader Whether or not this member is a leader. 1 if is, 0 otherwise.
# TYPE etcd_server_is_leader gauge
etcd_server_is_leader 1
# HELP etcd_server_leader_changes_seen_total The number of leader changes seen.
# TYPE etcd_server_leader_changes_seen_total counter
etcd_server_leader_changes_seen_total 1
# HELP etcd_network_peer_round_trip_time_seconds Round-Trip-Time histogram between peers
# TYPE etcd_network_peer_round_trip_time_seconds histogram
etcd_network_peer_round_trip_time_seconds_bucket{To="91bc3c398fb3c146",le="0.0001"} 0
etcd_network_peer_round_trip_time_seconds_bucket{To="91bc3c398fb3c146",le="+Inf"} 4
etcd_network_peer_round_trip_time_seconds_sum{To="91bc3c398fb3c146"} 0.0016
etcd_network_peer_round_trip_time_seconds_count{To="91bc3c398fb3c146"} 4
etcd_network_peer_round_trip_time_seconds_sum{To="fd422379fda50e48"} 0
etcd_network_peer_round_trip_time_seconds_count{To="fd422379fda50e48"} 0
`;

describe('parsePrometheusText', () => {
  it('reads names, escaped label values, special values and timestamps, skipping what it cannot read', () => {
    const samples = parsePrometheusText(
      'a{x="q\\"uote",y="line\\nbreak"} 1.5 1700000000000\nb +Inf\nc NaN\nd not-a-number\n{bad} 1\n',
    );
    assert.deepEqual(samples.slice(0, 2), [
      { name: 'a', labels: { x: 'q"uote', y: 'line\nbreak' }, value: 1.5 },
      { name: 'b', labels: {}, value: Infinity },
    ]);
    assert.equal(samples.length, 3);
    assert.ok(Number.isNaN(samples[2]!.value));
  });
});

describe('readEtcdMetrics', () => {
  it('reads the member ID, leadership and mean peer RTT in ms (peers never measured are left out)', () => {
    const metrics = readEtcdMetrics(leaderText);
    assert.deepEqual(metrics, {
      id: '8e9e05c52164694d',
      isLeader: true,
      hasLeader: true,
      peerRttMs: { '91bc3c398fb3c146': 0.4 },
    });
  });

  it('reads a follower and refuses text that is not an etcd metrics page', () => {
    assert.deepEqual(readEtcdMetrics('etcd_server_is_leader 0\netcd_server_has_leader 0\n'), {
      isLeader: false,
      hasLeader: false,
      peerRttMs: {},
    });
    assert.equal(readEtcdMetrics('process_cpu_seconds_total 3\n'), undefined);
  });
});

describe('etcdClusterObject', () => {
  const fixture = fileURLToPath(
    new URL(
      '../../../../../shared/fixtures/real-world/etcd/kubescape-regolibrary.kubeadm-etcd-static-pod.yaml',
      import.meta.url,
    ),
  );
  const node = (name: string, addresses: string[]): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: { addresses: addresses.map((address) => ({ type: 'InternalIP', address })) },
  });
  const follower = { isLeader: false, peerRttMs: {} };

  it('places members on the node of the etcd Pod serving their URL, else on the node with their address', async () => {
    const [pod] = await loadTopologyPaths([fixture]);
    const onNode = { ...pod!, spec: { ...(pod!.spec as object), nodeName: 'minikube' } };
    const nodes = buildSnapshot(
      [
        node('minikube', ['192.168.49.2']),
        node('cp-2', ['10.0.0.2']),
        node('dup-1', ['10.0.0.9']),
        node('dup-2', ['10.0.0.9']),
      ],
      { now: 0 },
    ).nodes;
    const object = etcdClusterObject(
      [
        { endpoint: 'http://127.0.0.1:2381/metrics', metrics: { id: 'aa', isLeader: true, peerRttMs: { bb: 1 } } },
        { endpoint: 'https://192.168.49.2:2379', metrics: follower },
        { endpoint: 'http://10.0.0.2:2381', metrics: follower },
        { endpoint: 'http://10.0.0.9:2381', metrics: follower },
      ],
      [onNode],
      nodes,
    );
    assert.deepEqual(object.status, {
      members: [
        {
          name: 'aa',
          nodeName: 'minikube',
          endpoint: 'http://127.0.0.1:2381/metrics',
          isLeader: true,
          peerRttMs: { bb: 1 },
        },
        {
          name: '192.168.49.2:2379',
          nodeName: 'minikube',
          endpoint: 'https://192.168.49.2:2379',
          isLeader: false,
          peerRttMs: {},
        },
        { name: '10.0.0.2:2381', nodeName: 'cp-2', endpoint: 'http://10.0.0.2:2381', isLeader: false, peerRttMs: {} },
        { name: '10.0.0.9:2381', endpoint: 'http://10.0.0.9:2381', isLeader: false, peerRttMs: {} },
      ],
    });
    const snapshot = buildSnapshot([object], { now: 0 });
    assert.equal(snapshot.etcd.leader?.nodeName, 'minikube');
  });

  it('reads `--flag value` as well as `--flag=value`, and ignores Pods of other components', () => {
    const pod = (component: string, nodeName: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${component}-${nodeName}`,
        namespace: 'kube-system',
        labels: { component, tier: 'control-plane' },
      },
      spec: {
        nodeName,
        containers: [
          {
            name: 'c',
            command: ['etcd'],
            args: ['--listen-metrics-urls', 'http://127.0.0.1:3001,http://127.0.0.1:3002'],
          },
        ],
      },
    });
    const nodes = buildSnapshot([], { now: 0 }).nodes;
    const members = etcdClusterObject(
      [{ endpoint: 'http://127.0.0.1:3002', metrics: follower }],
      [pod('kube-apiserver', 'x'), pod('etcd', 'cp-a')],
      nodes,
    );
    assert.equal((members.status as { members: { nodeName?: string }[] }).members[0]?.nodeName, 'cp-a');
  });
});

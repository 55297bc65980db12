// `topogate probe` on the real control plane: five agents as processes on
// their own loopback addresses (distinct nodes in two zones), probe Pods
// written by the test as a kubelet would, and a delaying relay in front of
// every agent that adds a known round trip between zones (and to one node's
// own-zone probes). The NetworkTopology status must match the delays, follow
// a change, survive the writer's death, and name the slow node; the webhook's
// latency decisions must follow the measured status.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CoordinationV1Api,
  type CoreV1Api,
  CustomObjectsApi,
  type V1NodeSelectorRequirement,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { coreApi, createNodes, kubeConfig, kubectlOk, metricSamples } from './harness/kube.ts';
import { freePort } from './harness/ports.ts';
import { disown, own } from './harness/process.ts';
import { type Relay, startRelay } from './harness/relay.ts';
import type { Topogate } from './harness/topogate.ts';
import { installTopogateCrds, registerWebhook, startTopogate } from './harness/topogate.ts';
import { repoRoot } from './harness/versions.ts';
import { waitFor } from './harness/wait.ts';

const ZONE = 'topology.kubernetes.io/zone';
const NAMESPACE = 'topogate';
const SELECTOR = { 'app.kubernetes.io/name': 'topogate-probe' };
const fleet = [
  { name: 'a1', zone: 'zone-a', ip: '127.0.1.1' },
  { name: 'a2', zone: 'zone-a', ip: '127.0.1.2' },
  { name: 'a3', zone: 'zone-a', ip: '127.0.1.3' },
  { name: 'b1', zone: 'zone-b', ip: '127.0.1.4' },
  { name: 'b2', zone: 'zone-b', ip: '127.0.1.5' },
] as const;
const SLOW_NODE = 'a3';
const SLOW_NODE_MS = 15;
// Probe flags: a 250 ms round, a 3 s Lease renewed every 500 ms, a write at most every second, and a
// 1 MiB throughput transfer between zones every 2 s.
const FLAGS = [
  ...['--interval', '250ms', '--timeout', '500ms', '--lease-duration', '3s', '--renew', '500ms'],
  ...['--bandwidth-period', '2s', '--bandwidth-bytes', '1Mi'],
];
const WRITE_FLAGS = ['--write-period', '1s', '--refresh', '5s'];
// docs/probe.md: a change is followed within 3 × (2 × interval + timeout) + 2 × write period; a dead
// writer is replaced, and the status written, within 5/3 × lease duration + write period.
const FOLLOW_BOUND_MS = 3 * (2 * 250 + 500) + 2 * 1000;
const FAILOVER_BOUND_MS = (5 * 3000) / 3 + 1000;
/** Loopback noise: the relay's timers fire late on two cores shared by everything (load ~25 seen). */
const near = (measured: number, injected: number) => Math.abs(measured - injected) <= 4 + injected * 0.2;

interface Link {
  from: string;
  to: string;
  rttMs: number;
  rttP99Ms: number;
  samples: number;
  bandwidthGbps?: number;
}
interface Status {
  observedAt?: string;
  links?: Link[];
  degradedNodes?: { name: string; rttMs: number; zoneRttMs: number }[];
}

const policy = `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata:
  name: near-zone-a
spec:
  match:
    podSelector: {matchLabels: {near: zone-a}}
  rules:
    latency:
      to: {zone: zone-a}
      maxRttMs: 20
      mode: Required
      avoidDegradedNodes: true
`;

describe('topogate probe on the real control plane', { timeout: 600_000 }, () => {
  let cluster: Cluster;
  let api: CoreV1Api;
  let topogate: Topogate;
  let crossZoneMs = 10;
  const relays: Relay[] = [];
  const agents = new Map<string, ChildProcess>();
  const zoneOfIp = new Map<string, string>(fleet.map((n) => [n.ip, n.zone]));
  const slowIp = fleet.find((n) => n.name === SLOW_NODE)!.ip;

  const status = async (): Promise<Status> => {
    const objects = kubeConfig(cluster).makeApiClient(CustomObjectsApi);
    const object = (await objects.getClusterCustomObject({
      group: 'topogate.dev',
      version: 'v1alpha1',
      plural: 'networktopologies',
      name: 'default',
    })) as { status?: Status };
    return object.status ?? {};
  };
  const link = (s: Status, from: string, to: string) => s.links?.find((l) => l.from === from && l.to === to);
  const holder = async () =>
    (
      await kubeConfig(cluster)
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ namespace: NAMESPACE, name: 'topogate-probe' })
    ).spec?.holderIdentity ?? '';
  const decided = async (): Promise<V1NodeSelectorRequirement[]> => {
    const pod = await api.createNamespacedPod({
      namespace: 'latency',
      dryRun: 'All',
      body: {
        metadata: { name: 'near-a', labels: { near: 'zone-a' } },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
    const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    return terms?.[0]?.matchExpressions ?? [];
  };
  const zonesDecided = async () => JSON.stringify((await decided()).find((e) => e.key === ZONE)?.values);

  const startAgent = async (node: (typeof fleet)[number]) => {
    const port = await freePort();
    const log = join(cluster.dir, `probe-${node.name}.log`);
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'topogate.ts'),
        'probe',
        '--node-name',
        node.name,
        '--listen',
        `${node.ip}:${port}`,
        '--kubeconfig',
        cluster.kubeconfig,
        ...FLAGS,
        ...WRITE_FLAGS,
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (child.pid !== undefined) own(child.pid);
    child.stdout.on('data', (chunk: Buffer) => appendFileSync(log, chunk));
    child.stderr.on('data', (chunk: Buffer) => appendFileSync(log, chunk));
    agents.set(node.name, child);
    return port;
  };

  const stopAgent = async (name: string, signal: NodeJS.Signals) => {
    const child = agents.get(name);
    agents.delete(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
    if (child.pid !== undefined) disown(child.pid);
  };

  before(async () => {
    cluster = await startCluster();
    api = coreApi(cluster);
    await installTopogateCrds(cluster);
    await createNodes(
      api,
      fleet.map((n) => ({ name: n.name, labels: { [ZONE]: n.zone } })),
    );
    for (const name of [NAMESPACE, 'latency']) await api.createNamespace({ body: { metadata: { name } } });

    for (const node of fleet) {
      const agentPort = await startAgent(node);
      // The relay stands at the Pod's address and port; the agent listens beside it.
      const relay = await startRelay(node.ip, { host: node.ip, port: agentPort }, (source) => {
        const from = zoneOfIp.get(source);
        if (from === undefined) return 0; // the writer's /summary requests, from 127.0.0.1
        if (from !== node.zone) return crossZoneMs;
        return source === slowIp ? SLOW_NODE_MS : 0;
      });
      relays.push(relay);
      const pod: V1Pod = {
        metadata: { name: `probe-${node.name}`, labels: SELECTOR },
        spec: {
          nodeName: node.name,
          containers: [{ name: 'probe', image: 'topogate:dev', ports: [{ name: 'probe', containerPort: relay.port }] }],
        },
      };
      await api.createNamespacedPod({ namespace: NAMESPACE, body: pod });
      // The test stands in for the kubelet.
      await kubectlOk(cluster, [
        'patch',
        'pod',
        `probe-${node.name}`,
        '-n',
        NAMESPACE,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { phase: 'Running', podIP: node.ip, podIPs: [{ ip: node.ip }] } }),
      ]);
    }

    const policies = mkdtempSync(join(tmpdir(), 'topogate-probe-policies-'));
    writeFileSync(join(policies, 'near-zone-a.yaml'), policy);
    topogate = await startTopogate({ cluster, policies });
    await registerWebhook(cluster, topogate);
  });

  after(async () => {
    for (const name of [...agents.keys()]) await stopAgent(name, 'SIGTERM');
    for (const relay of relays) await relay.close();
    await topogate?.stop();
    await cluster?.stop();
  });

  test('the status holds one link per zone pair whose RTTs match the injected delays', async () => {
    let last: Status = {};
    await waitFor(
      async () => {
        last = await status();
        const ab = link(last, 'zone-a', 'zone-b');
        const bb = link(last, 'zone-b', 'zone-b');
        const aa = link(last, 'zone-a', 'zone-a');
        // zone-a's own RTT mixes its fast pairs with those of the slow node a3, in proportions the rotation
        // sets: it lies between the two, not near 0 (the degraded-node test below tells a3 apart).
        const aaBetween = !!aa && aa.rttMs >= 0 && aa.rttMs <= SLOW_NODE_MS * 1.2 + 4;
        return !!ab && !!bb && aaBetween && near(ab.rttMs, 10) && near(bb.rttMs, 0);
      },
      {
        what: `status links near the injected delays (last: ${JSON.stringify(last)})`,
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    );
    console.log(`status: ${JSON.stringify(last)}`);
    assert.equal(last.links?.length, 3);
    for (const l of last.links ?? []) {
      assert.ok(l.samples > 0 && l.rttP99Ms >= l.rttMs, JSON.stringify(l));
    }
    assert.ok(Date.now() - Date.parse(last.observedAt ?? '') < 30_000, `observedAt ${last.observedAt}`);
  });

  test('the bounded throughput probe puts the bandwidth between the zones in the status', async () => {
    let last: Status = {};
    await waitFor(
      async () => {
        last = await status();
        return (link(last, 'zone-a', 'zone-b')?.bandwidthGbps ?? 0) > 0;
      },
      { what: `bandwidthGbps on zone-a–zone-b (last: ${JSON.stringify(last.links)})`, timeoutMs: 30_000 },
    );
    const measured = link(last, 'zone-a', 'zone-b')!.bandwidthGbps!;
    console.log(`zone-a–zone-b: ${measured} Gbps through the delaying relay`);
    assert.ok(Number.isFinite(measured) && measured < 1000, String(measured));
    assert.equal(link(last, 'zone-a', 'zone-a')?.bandwidthGbps, undefined, 'no transfer inside a zone');
  });

  test('a node whose own-zone RTT is far above its zone’s shows up in degradedNodes', async () => {
    let last: Status = {};
    await waitFor(
      async () => {
        last = await status();
        return (last.degradedNodes ?? []).some((n) => n.name === SLOW_NODE);
      },
      { what: 'a3 in degradedNodes', timeoutMs: 30_000, intervalMs: 250 },
    );
    const [slow, ...others] = last.degradedNodes ?? [];
    assert.deepEqual(others, [], JSON.stringify(last.degradedNodes));
    assert.equal(slow?.name, SLOW_NODE);
    // The rule itself (docs/probe.md): above 3 × the rest of its zone and 1 ms over it.
    assert.ok(near(slow.rttMs, SLOW_NODE_MS) && slow.rttMs > 3 * slow.zoneRttMs, JSON.stringify(slow));
  });

  test('the webhook decides from the measured RTT (zone-b is within 20 ms of zone-a) and avoids the degraded node', async () => {
    await waitFor(async () => (await zonesDecided()) === '["zone-a","zone-b"]', {
      what: 'the webhook placing near-a in zone-a or zone-b',
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const avoided = (await decided()).find((e) => e.key === 'kubernetes.io/hostname');
    assert.deepEqual({ ...avoided }, { key: 'kubernetes.io/hostname', operator: 'NotIn', values: [SLOW_NODE] });
  });

  test('a change of delay reaches the status within the documented bound, and the next decisions', async () => {
    const changed = Date.now();
    crossZoneMs = 30;
    let last: Status = {};
    await waitFor(
      async () => {
        last = await status();
        const ab = link(last, 'zone-a', 'zone-b');
        return !!ab && near(ab.rttMs, 30);
      },
      { what: 'zone-a/zone-b following 30 ms', timeoutMs: 60_000, intervalMs: 100 },
    );
    const tookMs = Date.now() - changed;
    console.log(`followed 10 -> 30 ms in ${tookMs} ms (bound ${FOLLOW_BOUND_MS} ms): ${JSON.stringify(last.links)}`);
    assert.ok(tookMs <= FOLLOW_BOUND_MS, `took ${tookMs} ms`);
    await waitFor(async () => (await zonesDecided()) === '["zone-a"]', {
      what: 'the webhook keeping near-a in zone-a',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  });

  test('killing the writer: another agent takes the Lease and writes within the documented bound', async () => {
    const writer = await holder();
    const node = writer.split('_')[0]!;
    assert.ok(agents.has(node), `lease holder ${writer}`);
    const killed = Date.now();
    await stopAgent(node, 'SIGKILL');
    let next = '';
    let observed = 0;
    await waitFor(
      async () => {
        next = await holder();
        observed = Date.parse((await status()).observedAt ?? '');
        return next !== writer && next !== '' && observed > killed;
      },
      { what: 'a new writer', timeoutMs: 60_000, intervalMs: 100 },
    );
    const tookMs = Date.now() - killed;
    console.log(`writer ${writer} killed; ${next} wrote after ${tookMs} ms (bound ${FAILOVER_BOUND_MS} ms)`);
    assert.ok(tookMs <= FAILOVER_BOUND_MS, `took ${tookMs} ms`);
    assert.notEqual(next.split('_')[0], node);
  });

  test('agents serve /healthz and RTT histograms by peer zone, with no label per peer node', async () => {
    const node = [...agents.keys()][0]!;
    const relayPort = relays[fleet.findIndex((n) => n.name === node)]!.port;
    const ip = fleet.find((n) => n.name === node)!.ip;
    // Bounded: one full run saw a GET through the relay get no answer for 300 s (not reproduced; the agent's
    // other connections kept working). A new connection per try, three tries, each said in the log.
    const get = async (path: string): Promise<string> => {
      for (let attempt = 1; ; attempt++) {
        try {
          const response = await fetch(`http://${ip}:${relayPort}${path}`, {
            headers: { connection: 'close' },
            signal: AbortSignal.timeout(10_000),
          });
          return await response.text();
        } catch (error) {
          console.log(`GET ${path} from ${node}, try ${attempt}: ${(error as Error).message}`);
          if (attempt === 3) throw error;
        }
      }
    };
    assert.equal(await get('/healthz'), 'ok\n');
    const metrics = await get('/metrics');
    const counts = metricSamples(metrics, 'topogate_probe_rtt_seconds_count');
    assert.deepEqual(new Set(counts.map((s) => Object.keys(s.labels).join(','))), new Set(['zone']));
    assert.deepEqual(new Set(counts.map((s) => s.labels.zone)), new Set(['zone-a', 'zone-b']));
    assert.ok(
      metricSamples(metrics, 'topogate_probe_lost_total').some((s) => s.value > 0),
      'the killed peer is loss',
    );
  });
});

// One `topogate probe` agent: the listener (probes + HTTP), the cluster view
// (probe Pods and Nodes), the probe rounds, and the Lease that makes one agent
// at a time the NetworkTopology status writer.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CoreV1Api, type KubeConfig, type V1Node, type V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Informer } from '../../kube-client/informer.ts';
import { elect } from '../../kube-client/lease.ts';
import { ZONE_LABEL } from '../../kube/labels.ts';
import { campaignPool, candidateNodes } from '../candidates.ts';
import { intervalBounds } from '../interval.ts';
import { type Peer, type ProbePod, peersOf, readProbePod } from '../peers.ts';
import { type AgentSummary, encodeSummary, withBandwidth } from '../summary.ts';
import type { WritePolicy } from '../write-policy.ts';
import { startBandwidthProbe } from './bandwidth.ts';
import { startCandidacy } from './candidacy.ts';
import { ciliumSource } from './cilium-source.ts';
import { listen } from './listener.ts';
import { createProbeMetrics } from './metrics.ts';
import { Prober } from './prober.ts';
import { StatusWriter } from './status-writer.ts';
import { Writer } from './writer.ts';

export const LEASE_NAME = 'topogate-probe';
export const NETWORK_TOPOLOGY_NAME = 'default';

export interface AgentOptions {
  readonly config: KubeConfig;
  readonly node: string;
  readonly host: string;
  readonly port: number;
  readonly namespace: string;
  readonly selector: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly peersPerRound: number;
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly writePolicy: WritePolicy;
  /** Cilium agents' /metrics URLs the writer reads beside the probes. */
  readonly ciliumMetrics: readonly string[];
  /** The bounded throughput probe: how often, and how many bytes a transfer; off when undefined. */
  readonly bandwidth?: { readonly periodMs: number; readonly bytes: number };
  readonly log: Logger;
  readonly registry: Registry;
}

export interface Agent {
  readonly port: number;
  stop(): Promise<void>;
}

export async function startAgent(options: AgentOptions): Promise<Agent> {
  const { config, node, namespace, selector, log, registry } = options;
  const metrics = createProbeMetrics(registry);
  const core = config.makeApiClient(CoreV1Api);
  const pods = new Informer<V1Pod>({
    config,
    path: `/api/v1/namespaces/${namespace}/pods`,
    // Whole: a few small Pods per node, and the probe reads their ports and podIP.
    list: () => core.listNamespacedPod({ namespace, labelSelector: selector }),
    labelSelector: selector,
    title: 'probe Pods',
    log: log.child({ watch: 'pods' }),
  });
  const nodes = new Informer<V1Node>({
    config,
    path: '/api/v1/nodes',
    list: () => core.listNode(),
    slimAs: 'nodes',
    title: 'Nodes',
    log: log.child({ watch: 'nodes' }),
  });

  const zones = (): Map<string, string> => {
    const out = new Map<string, string>();
    for (const item of nodes.list()) {
      const zone = item.metadata?.labels?.[ZONE_LABEL];
      if (item.metadata?.name && zone) out.set(item.metadata.name, zone);
    }
    return out;
  };
  const view = (): { peers: readonly Peer[]; zone: string | undefined } => {
    const zoneOf = zones();
    const probePods: ProbePod[] = pods.list().flatMap((pod) => readProbePod(pod) ?? []);
    return { peers: peersOf(probePods, (name) => zoneOf.get(name), node), zone: zoneOf.get(node) };
  };

  const localAddress = options.host === '0.0.0.0' || options.host === '::' ? undefined : options.host;
  const prober = new Prober({
    localAddress,
    bounds: intervalBounds(options.intervalMs),
    budget: options.peersPerRound,
    timeoutMs: options.timeoutMs,
    view,
    node,
    reportPeersWithinMs: 2 * options.writePolicy.minPeriodMs,
    metrics,
    log,
  });
  const bandwidth =
    options.bandwidth &&
    startBandwidthProbe({
      node,
      periodMs: options.bandwidth.periodMs,
      bytes: options.bandwidth.bytes,
      // A transfer gets half its period, and 30 s at most: a stalled one never delays the next period.
      timeoutMs: Math.min(options.bandwidth.periodMs / 2, 30_000),
      localAddress,
      view,
      metrics,
      log,
    });
  const summary = (): AgentSummary | undefined => {
    const own = prober.summary();
    return own && bandwidth ? withBandwidth(own, bandwidth.latest()) : own;
  };
  const writer = new Writer({
    policy: options.writePolicy,
    gatherTimeoutMs: options.timeoutMs * 2,
    own: () => summary(),
    peers: () => view().peers,
    zones,
    status: new StatusWriter(config, NETWORK_TOPOLOGY_NAME, ZONE_LABEL),
    metrics,
    log,
    ...(options.ciliumMetrics.length > 0
      ? { extra: ciliumSource(options.ciliumMetrics, zones, options.timeoutMs, log) }
      : {}),
  });
  const leading = (held: boolean) => {
    metrics.leader.set(held ? 1 : 0);
    if (held) writer.lead();
    else writer.follow();
  };

  const http = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/healthz') return reply(response, 200, 'text/plain', 'ok\n');
    if (path === '/metrics') return reply(response, 200, registry.contentType, await registry.metrics());
    if (path === '/summary') {
      const mine = summary();
      if (!mine) return reply(response, 503, 'text/plain', `the zone of node ${node} is not known yet\n`);
      return reply(response, 200, 'application/json', encodeSummary(mine));
    }
    return reply(response, 404, 'text/plain', 'not found\n');
  };
  const listener = await listen(options.host, options.port, (request, response) => void http(request, response));
  pods.start();
  nodes.start();
  prober.start();
  // A few candidates campaign: the holder looks every --renew, the other candidates every lease / 3.
  const lookMs = Math.max(options.renewMs, options.leaseMs / 3);
  const candidacy = startCandidacy({
    isCandidate: () =>
      pods.synced() && nodes.synced()
        ? candidateNodes(LEASE_NAME, campaignPool(node, pods.list(), nodes.list())).has(node)
        : undefined,
    campaign: () =>
      elect({
        config,
        namespace,
        name: LEASE_NAME,
        log,
        identity: `${node}_${randomUUID().slice(0, 8)}`,
        leaseDurationMs: options.leaseMs,
        retryMs: options.renewMs,
        candidateRetryMs: lookMs,
        onStartedLeading: () => leading(true),
        onStoppedLeading: () => leading(false),
      }),
    everyMs: lookMs,
    log,
  });
  log.info({ node, listen: `${options.host}:${listener.port}`, namespace, selector }, 'topogate probe started');

  return {
    port: listener.port,
    async stop() {
      writer.follow();
      await candidacy.stop();
      await bandwidth?.stop();
      prober.stop();
      await Promise.all([pods.stop(), nodes.stop()]);
      await listener.close();
    },
  };
}

function reply(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type });
  response.end(body);
}

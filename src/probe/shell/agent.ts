// One `topogate probe` agent: the listener (probes + HTTP), the cluster view
// (probe Pods and Nodes), the probe rounds, and the Lease that makes one agent
// at a time the NetworkTopology status writer.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { elect } from '../../kube-client/lease.ts';
import { ZONE_LABEL } from '../../kube/labels.ts';
import { campaignPool, candidateNodes } from '../candidates.ts';
import { intervalBounds } from '../interval.ts';
import { type AgentSummary, withBandwidth } from '../summary.ts';
import type { WritePolicy } from '../write-policy.ts';
import { agentHttp } from './agent-http.ts';
import { startBandwidthProbe, type BandwidthProbe } from './bandwidth.ts';
import { startCandidacy, type Candidacy } from './candidacy.ts';
import { ciliumSource } from './cilium-source.ts';
import { clusterView, type ClusterView } from './cluster-view.ts';
import { listen } from './listener.ts';
import { createProbeMetrics, type ProbeMetrics } from './metrics.ts';
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
  const cluster = clusterView(config, options, log);
  const { pods, nodes, view } = cluster;
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
  const bandwidth = options.bandwidth && bandwidthProbe(options, options.bandwidth, view, localAddress, metrics);
  const summary = (): AgentSummary | undefined => {
    const own = prober.summary();
    return own && bandwidth ? withBandwidth(own, bandwidth.latest()) : own;
  };
  const writer = statusWriter(options, cluster, summary, metrics);
  const http = agentHttp(registry, node, summary);
  const listener = await listen(options.host, options.port, (request, response) => void http(request, response));
  pods.start();
  nodes.start();
  prober.start();
  const candidacy = campaign(options, cluster, (held) => {
    metrics.leader.set(held ? 1 : 0);
    if (held) writer.lead();
    else writer.follow();
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

/** The bounded throughput probe. */
function bandwidthProbe(
  { node, log }: AgentOptions,
  { periodMs, bytes }: NonNullable<AgentOptions['bandwidth']>,
  view: ClusterView['view'],
  localAddress: string | undefined,
  metrics: ProbeMetrics,
): BandwidthProbe {
  return startBandwidthProbe({
    node,
    periodMs,
    bytes,
    // A transfer gets half its period, and 30 s at most: a stalled one never delays the next period.
    timeoutMs: Math.min(periodMs / 2, 30_000),
    localAddress,
    view,
    metrics,
    log,
  });
}

/** The NetworkTopology status writer, following until this agent holds the Lease. */
function statusWriter(
  options: AgentOptions,
  { view, zones }: ClusterView,
  summary: () => AgentSummary | undefined,
  metrics: ProbeMetrics,
): Writer {
  const { log, timeoutMs } = options;
  return new Writer({
    policy: options.writePolicy,
    gatherTimeoutMs: timeoutMs * 2,
    own: () => summary(),
    peers: () => view().peers,
    zones,
    status: new StatusWriter(options.config, NETWORK_TOPOLOGY_NAME, ZONE_LABEL),
    metrics,
    log,
    ...(options.ciliumMetrics.length > 0 ? { extra: ciliumSource(options.ciliumMetrics, zones, timeoutMs, log) } : {}),
  });
}

/** A few candidates campaign: the holder looks every --renew, the other candidates every lease / 3. */
function campaign(options: AgentOptions, { pods, nodes }: ClusterView, leading: (held: boolean) => void): Candidacy {
  const { config, node, log } = options;
  const lookMs = Math.max(options.renewMs, options.leaseMs / 3);
  return startCandidacy({
    isCandidate: () =>
      pods.synced() && nodes.synced()
        ? candidateNodes(LEASE_NAME, campaignPool(node, pods.list(), nodes.list())).has(node)
        : undefined,
    campaign: () =>
      elect({
        config,
        namespace: options.namespace,
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
}

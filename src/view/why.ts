// Why a section of the view has nothing to show: its source is off or
// missing, topogate may not read it, it has not synced, or there is nothing
// yet. Every empty section says one of these, never an empty table. Pure.

import type { SourceName, SourceStatus, TopologySnapshot } from '../topology/model.ts';

const forbidden = /forbidden|\b403\b|unauthori[sz]ed|\b401\b/i;

/** Why the source has given nothing, or undefined when it has objects. */
export function whyNothing(source: SourceStatus | undefined, what: string): string | undefined {
  if (source === undefined) return `no source: this topology does not read ${what}`;
  if (source.disabled !== undefined) return `no source: ${source.disabled}`;
  if (source.error !== undefined && forbidden.test(source.error)) return `not permitted: ${source.error}`;
  if (source.error !== undefined) return `the source fails: ${source.error}`;
  if (!source.synced) return `not synced yet: the first list of ${what} has not arrived`;
  if (source.objects === 0) return `nothing yet: no ${what} in the cluster`;
  return undefined;
}

const sourceWhat: Readonly<Record<SourceName, string>> = {
  nodes: 'Nodes',
  namespaces: 'Namespaces',
  nodeResourceTopologies: 'NodeResourceTopology objects',
  endpointSlices: 'EndpointSlices',
  controlPlanePods: 'control-plane Pods (kube-system, tier: control-plane)',
  networkTopologies: 'NetworkTopology objects',
  etcd: "etcd members' /metrics",
  pods: 'Pods',
  resourceSlices: 'ResourceSlices',
};

export function whySource(snapshot: TopologySnapshot, name: SourceName): string | undefined {
  return whyNothing(snapshot.sources.get(name), sourceWhat[name]);
}

/** Why the etcd leader is unknown; undefined when it is known. */
export function whyNoLeader(snapshot: TopologySnapshot): string | undefined {
  if (snapshot.etcd.leader) return undefined;
  const source = whySource(snapshot, 'etcd');
  if (source !== undefined) return source;
  const members = snapshot.etcd.members;
  if (members.length === 0) return 'no etcd member answered its /metrics';
  return `none of the ${members.length} etcd members says it is the leader (etcd_server_is_leader)`;
}

/** Why the map has no links between zones. */
export function whyNoLinks(snapshot: TopologySnapshot): string | undefined {
  if (snapshot.network === undefined)
    return whySource(snapshot, 'networkTopologies') ?? 'no NetworkTopology object names the links between zones';
  return undefined;
}

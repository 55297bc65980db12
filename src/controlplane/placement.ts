// Puts a control-plane component on a Node, and so on a zone: a Lease holder by
// its identity (kube-scheduler and kube-controller-manager use
// `<hostname>_<uuid>`, and a control-plane machine's hostname is its Node's
// name), else by the one control-plane Pod of that component.

import { ZONE_LABEL } from '../kube/labels.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import type { LeaderStatus, Placement } from '../ports/controlplane.ts';

export function zoneLabel(snapshot: TopologySnapshot): string {
  return snapshot.network?.domainLabel ?? ZONE_LABEL;
}

export function placeNode(snapshot: TopologySnapshot, nodeName: string | undefined): Placement {
  if (!nodeName) return {};
  const zone = snapshot.nodes.get(nodeName)?.labels[zoneLabel(snapshot)];
  return { nodeName, ...(zone ? { zone } : {}) };
}

export function placeLeader(snapshot: TopologySnapshot, holder: string, component: string): LeaderStatus {
  const prefix = holder.split('_')[0] ?? '';
  if (prefix && snapshot.nodes.get(prefix)) return { holder, ...placeNode(snapshot, prefix) };
  const pods = snapshot.controlPlane.filter((pod) => pod.component === component && pod.nodeName);
  return { holder, ...(pods.length === 1 ? placeNode(snapshot, pods[0]?.nodeName) : {}) };
}

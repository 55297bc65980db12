// The topology model as decisions see it: one immutable snapshot, with its
// indexes, built from Kubernetes objects (live watches or files). Nothing
// here performs I/O; the sources in ./sources/ feed a builder that publishes
// a new snapshot per change.

import type { EtcdClusterMember } from '../api/v1alpha1/etcdcluster.ts';
import type { DegradedNode, MislabeledNode } from '../api/v1alpha1/networktopology.ts';
import type { Labels, Taint } from '../kube/types.ts';
import type { NodeSet } from './nodeset.ts';
import type { ResourceList } from '../kube/quantity.ts';

export type { ResourceList };

export interface NodeInfo {
  readonly name: string;
  /** Position of this node in every NodeSet of the snapshot. */
  readonly slot: number;
  readonly labels: Labels;
  readonly allocatable: ResourceList;
  readonly unschedulable: boolean;
  /** False only when the Ready condition is present and "False". */
  readonly ready: boolean;
  readonly taints: readonly Taint[];
  readonly addresses: readonly string[];
}

/** Nodes by slot, with label indexes: all answers are NodeSets. */
export interface NodeIndex {
  readonly count: number;
  get(name: string): NodeInfo | undefined;
  bySlot(slot: number): NodeInfo | undefined;
  all(): NodeSet;
  /** Not cordoned and Ready not False (taints are separate: see taintGroups). */
  schedulable(): NodeSet;
  withLabel(key: string): NodeSet;
  withLabelValue(key: string, value: string): NodeSet;
  /** The distinct values of a label key, with their nodes. */
  labelValues(key: string): ReadonlyMap<string, NodeSet>;
  /** Nodes grouped by their exact NoSchedule/NoExecute taint list (few groups in practice). */
  taintGroups(): readonly TaintGroup[];
}

export interface TaintGroup {
  readonly taints: readonly Taint[];
  readonly nodes: NodeSet;
}

export interface NumaZone {
  readonly name: string;
  readonly capacity: ResourceList;
  readonly allocatable: ResourceList;
  readonly available: ResourceList;
}

export interface NodeResourceTopology {
  readonly nodeName: string;
  /** topologyManagerPolicy, topologyManagerScope, … from attributes (and v1alpha2 topologyPolicies). */
  readonly attributes: Labels;
  /** Zones of type Node (NUMA cells) only. */
  readonly zones: readonly NumaZone[];
}

export interface NumaCandidate {
  readonly node: string;
  readonly zone: string;
  /** Lower is a tighter fit: the sum over requested resources of (available − request) / available. */
  readonly leftover: number;
}

export interface NumaFit {
  /** Nodes with a NUMA zone whose available resources fit the whole request. */
  readonly nodes: NodeSet;
  /** The same nodes, best fit first (leftover, then node name), each with its best zone. */
  readonly ranked: readonly NumaCandidate[];
}

export interface NumaIndex {
  /** Memoised per request shape; the request is in milli-units. */
  fit(request: ResourceList): NumaFit;
  /** Nodes that have a NodeResourceTopology object. */
  known(): NodeSet;
}

/** Which round-trip figure a question reads: the median (status rttMs) or the tail (status rttP99Ms). */
export type RttPercentile = 'p50' | 'p99';

// status.degradedNodes and status.mislabeled, as NetworkTopology objects carry them.
export type { DegradedNode, MislabeledNode };

/**
 * Links between failure domains. A measured link (status.links) wins over a
 * declared one (spec.links) for the same pair; declared links are the
 * fallback. p99 reads the measured rttP99Ms, else the measured median, else
 * the declared rttMs (a declared figure has no percentile).
 */
export interface NetworkModel {
  readonly name: string;
  /** The node label whose values links speak of (usually topology.kubernetes.io/zone). */
  readonly domainLabel: string;
  /** Epoch ms of status.observedAt, when given. */
  readonly observedAt?: number;
  /** RTT between two domains; 0 for a domain to itself; undefined when no link is known. */
  rttMs(from: string, to: string, percentile?: RttPercentile): number | undefined;
  /** Domains whose RTT to `target` is ≤ maxRttMs (target included), memoised. */
  within(target: string, maxRttMs: number, percentile?: RttPercentile): ReadonlySet<string>;
  /** Known domains sorted by RTT to `target`, nearest first (target first). */
  nearest(target: string, percentile?: RttPercentile): readonly { readonly domain: string; readonly rttMs: number }[];
  /** The measured RTT between nodes of one domain (a status link with from == to). */
  zoneRttMs(domain: string, percentile?: RttPercentile): number | undefined;
  /** Bandwidth between two different domains: measured when measured, else declared. */
  bandwidthGbps(from: string, to: string): number | undefined;
  /** Whether rttMs(from, to) comes from a measurement (status) rather than a declaration (spec). */
  measured(from: string, to: string): boolean;
  /** status.degradedNodes by node name. */
  readonly degradedNodes: ReadonlyMap<string, DegradedNode>;
  /** status.mislabeled by node name (written by `topogate probe` from the levels it derives). */
  readonly mislabeled?: ReadonlyMap<string, MislabeledNode>;
}

/** A member as EtcdCluster status.members holds it, its peer RTTs read (none: empty). */
export type EtcdMember = EtcdClusterMember & { readonly peerRttMs: Readonly<Record<string, number>> };

export interface EtcdModel {
  readonly members: readonly EtcdMember[];
  readonly leader?: EtcdMember;
}

export interface ControlPlanePod {
  readonly name: string;
  readonly component: string;
  readonly nodeName?: string;
}

export type SourceName =
  | 'nodes'
  | 'namespaces'
  | 'nodeResourceTopologies'
  | 'endpointSlices'
  | 'controlPlanePods'
  | 'networkTopologies'
  | 'etcd'
  | 'pods'
  | 'resourceSlices';

export interface SourceStatus {
  readonly name: SourceName;
  /** The first full list has been applied. */
  readonly synced: boolean;
  /** Disabled because its API (a CRD) is not installed, or not configured. */
  readonly disabled?: string;
  readonly objects: number;
  /** Epoch ms of the last list or event applied. */
  readonly updatedAt?: number;
  /**
   * Epoch ms since which the source has been out of contact (watch broken,
   * scrape failing); absent while it is current. A watched source with no
   * recent events is current: its age is now − staleSince, not now − updatedAt.
   */
  readonly staleSince?: number;
  readonly error?: string;
}

/** A device a DRA driver publishes in a ResourceSlice for one node. */
export interface Device {
  readonly driver: string;
  readonly name: string;
  /** The productName attribute (unqualified, or qualified by the driver's domain). */
  readonly productName?: string;
  /** capacity.memory in MiB, rounded down. */
  readonly memoryMiB?: number;
  readonly pcieRoot?: string;
  readonly numaNode?: number;
}

/** Pods admitted but not bound yet, held to one value of a node label: what they will take there. */
export interface PendingUnder {
  readonly pods: number;
  /** Their effective requests, summed. */
  readonly requests: ResourceList;
  /** workloadKey → how many of them it has. */
  readonly workloads: ReadonlyMap<string, number>;
}

/**
 * What the model knows is requested: the Pods bound to nodes, and those held to one value of a node label but
 * not bound yet (the `pods` source), frozen at one version. It changes with every bind, so it is versioned
 * apart from the snapshot: a bind makes a new occupancy, not a new snapshot (which would recompile every
 * policy and drop every memo).
 */
export interface Occupancy {
  /** Increases with every change of what is bound; caches of what bound Pods leave free key on it. */
  readonly version: number;
  /** Effective requests of the non-terminal Pods bound to the node, summed; undefined for none. */
  requested(node: string): ResourceList | undefined;
  /** Node → how many of the workload's (workloadKey) non-terminal Pods are bound there. */
  workloadNodes(workload: string): ReadonlyMap<string, number> | undefined;
  /** Value of the node label → the Pods not bound yet that are held to it (read/pod-usage.ts); undefined for none. */
  pendingUnder(label: string): ReadonlyMap<string, PendingUnder> | undefined;
  /**
   * The nodes whose requested sum differs between `earlier` (an occupancy of the same table) and this one;
   * undefined when that is no longer known (too many versions ago), so that a cache counts afresh.
   */
  changedSince(earlier: Occupancy): ReadonlySet<string> | undefined;
}

export interface TopologySnapshot {
  /** Increases with every published snapshot; caches key on it. */
  readonly version: number;
  /** A digest of the objects it was built from (fingerprint.ts): the same objects, the same content. */
  readonly content: string;
  readonly nodes: NodeIndex;
  readonly namespaces: ReadonlyMap<string, Labels>;
  readonly nodeTopologies: ReadonlyMap<string, NodeResourceTopology>;
  readonly numa: NumaIndex;
  /** "namespace/name" of a Service → zones holding its ready endpoints. */
  readonly services: ReadonlyMap<string, ReadonlySet<string>>;
  readonly controlPlane: readonly ControlPlanePod[];
  readonly network?: NetworkModel;
  readonly etcd: EtcdModel;
  /** The bound Pods when the snapshot was published; a live decision reads the newer one it is given (DecisionOptions). */
  readonly pods: Occupancy;
  /** Node name → the devices ResourceSlices publish for it. */
  readonly devices: ReadonlyMap<string, readonly Device[]>;
  readonly sources: ReadonlyMap<SourceName, SourceStatus>;
}

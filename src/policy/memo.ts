// What a decision would otherwise recompute for every Pod, kept for the life
// of one compiled policy set (so it dies with its snapshot): node sets by
// placement shape, and whole decisions by what the engine reads of a Pod.
// Replicas of a workload differ only in name and uid, so a steady stream of
// them is decided once; memoised sets keep their identity, so new shapes do
// little bitset work.

import { isRecord, recordsOf } from '../kube/json.ts';
import { parseQuantity } from '../kube/quantity.ts';
import type { Pod } from '../kube/types.ts';
import { podWorkload, workloadKey } from '../kube/workload-identity.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import type { NodeSet } from '../topology/nodeset.ts';
import { placementNodes, schedulableFor } from './satisfiability.ts';
import type { Decision, PodRequest } from './types.ts';

/** Enough for every workload shape of a large cluster; past it the oldest entry goes. */
const LIMIT = 1024;
/** Longer strings are not quantities anyway, and would only fill the memory the limit means to bound. */
const LONGEST_KEPT_QUANTITY = 64;

export interface Placement {
  /** Nodes the Pod may land on at all (schedulableFor). */
  readonly schedulable: NodeSet;
  /** Of those, the ones its own nodeSelector and required node affinity allow (placementNodes). */
  readonly own: NodeSet;
}

export class DecisionMemo {
  readonly #snapshot: TopologySnapshot;
  readonly #placements = new Map<string, Placement>();
  readonly #intersections = new WeakMap<NodeSet, Map<NodeSet, NodeSet>>();
  readonly #quantities = new Map<string, number | undefined>();
  /** null: seen once. */
  readonly #decisions = new Map<string, Decision | null>();

  /** Decisions depend on the workload identity (a partial rollout is in force). */
  readonly #byWorkload: boolean;

  constructor(snapshot: TopologySnapshot, byWorkload = false) {
    this.#snapshot = snapshot;
    this.#byWorkload = byWorkload;
  }

  placement(pod: Pod): Placement {
    const key = placementKey(pod);
    let placement = this.#placements.get(key);
    if (placement === undefined) {
      const schedulable = schedulableFor(pod, this.#snapshot);
      placement = { schedulable, own: placementNodes(pod, this.#snapshot, schedulable) };
      remember(this.#placements, key, placement);
    }
    return placement;
  }

  /** parseQuantity, remembered per string: Pods of a cluster repeat a few quantities ("500m", "1Gi") over and over. */
  readonly quantity = (value: unknown): number | undefined => {
    if (typeof value !== 'string' || value.length > LONGEST_KEPT_QUANTITY) return parseQuantity(value);
    if (this.#quantities.has(value)) return this.#quantities.get(value);
    const milli = parseQuantity(value);
    remember(this.#quantities, value, milli);
    return milli;
  };

  /**
   * The decision for a request whose decisionKey was seen twice before; computed otherwise. A decision is
   * kept only from a key's second sight: most Pods are the only one of their kind, and keeping each one's
   * decision (kilobytes that outlive the young generation) would make the old generation's collector
   * pay for every Pod. Decisions are never changed once made.
   */
  decision(request: PodRequest, compute: () => Decision): Decision {
    const key = decisionKey(request, this.#byWorkload);
    const kept = this.#decisions.get(key);
    if (kept) return kept;
    const decision = compute();
    if (kept === null) this.#decisions.set(key, decision);
    else remember(this.#decisions, key, null);
    return decision;
  }

  and(a: NodeSet, b: NodeSet): NodeSet {
    let withA = this.#intersections.get(a);
    if (withA === undefined) this.#intersections.set(a, (withA = new Map()));
    let both = withA.get(b);
    if (both === undefined) remember(withA, b, (both = a.and(b)));
    return both;
  }
}

/** What schedulableFor and placementNodes read of the Pod. Admission requests are JSON, so JSON text tells their inputs apart. */
function placementKey(pod: Pod): string {
  const spec = pod.spec;
  const spreadKeys = recordsOf(spec?.topologySpreadConstraints)
    .filter((spread) => spread.whenUnsatisfiable === 'DoNotSchedule' && typeof spread.topologyKey === 'string')
    .map((spread) => spread.topologyKey);
  return (
    JSON.stringify([
      spec?.nodeSelector,
      spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
      spec?.tolerations,
      spreadKeys,
    ]) ?? ''
  );
}

/**
 * Everything decide reads of a request, and nothing else: the namespace, the workload, the
 * Pod's labels and annotations, the spec fields placement, resources, QoS
 * and the patch read, whether metadata and spec exist at all (the patch
 * adds them when not), and the workload when a rule reads it (rollout, pack).
 * Uid, images, env, probes and volumes are left out: replicas differ there
 * and decisions do not.
 */
function decisionKey({ pod, namespace, workload }: PodRequest, byWorkload: boolean): string {
  const { metadata, spec } = pod;
  return (
    JSON.stringify([
      namespace,
      // The workload's kind says whether the Pod is a DaemonSet's; the whole identity whether a rollout takes it.
      byWorkload ? workloadKey(workload ?? podWorkload(pod, namespace)) : (workload?.kind ?? controllerKind(pod)),
      isRecord(metadata),
      metadata?.labels,
      metadata?.annotations,
      isRecord(spec),
      spec?.nodeName,
      spec?.nodeSelector,
      spec?.affinity,
      spec?.tolerations,
      spec?.topologySpreadConstraints,
      spec?.schedulerName,
      spec?.resources,
      spec?.overhead,
      recordsOf(spec?.containers).map((container) => container.resources),
      recordsOf(spec?.initContainers).map((container) => [container.resources, container.restartPolicy]),
    ]) ?? ''
  );
}

/** The controller owner's kind, without the allocations of podWorkload: the key's hot path. */
function controllerKind(pod: Pod): unknown {
  const owners = pod.metadata?.ownerReferences;
  if (Array.isArray(owners))
    for (const owner of owners) if (isRecord(owner) && owner.controller === true) return owner.kind;
  return undefined;
}

/** map.set, first dropping the oldest entry when the map holds LIMIT already. */
export function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= LIMIT) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

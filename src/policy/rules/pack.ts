// pack: every Pod of one workload inside one domain of a node hierarchy (a
// rack, a block), chosen so that the domain's free capacity holds the whole
// workload. The choice is derived, never stored: the domain that already
// holds the workload's bound Pods while it still has room for the rest, else
// the fitting domain that ranks highest for the workload by rendezvous
// hashing. The same workload on the same facts always gets the same domain,
// so replicas agree with each other and with a restarted topogate.

import type { LRUCache } from 'lru-cache';
import { formatQuantity } from '../../kube/quantity.ts';
import type { Labels, NodeSelectorRequirement } from '../../kube/types.ts';
import { workloadKey } from '../../kube/workload-identity.ts';
import type { NodeInfo, ResourceList, TopologySnapshot } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import { lruMap } from '../memo.ts';
import type { PackRule } from '../types.ts';
import { describeRequirement, output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';

export const REPLICAS_ANNOTATION = 'topogate.dev/replicas';
const PREFERRED_WEIGHT = 100;

interface Domain {
  /** The level values from the outermost level down to the rule's level, joined by "/". */
  readonly key: string;
  /** FNV-1a of key, mixed with a workload's hash to rank the domain for it. */
  readonly hash: number;
  readonly value: string;
  readonly requirements: readonly NodeSelectorRequirement[];
  readonly nodes: readonly NodeInfo[];
  readonly set: NodeSet;
}

/** How many more Pods of one request shape each domain still has room for, among the allowed nodes. */
class Room {
  readonly of: ReadonlyMap<Domain, number>;
  /** Roomiest first, ties by key. */
  readonly ranked: readonly Domain[];
  /** Per count needed: the domains with room for it, with their hashes (a prefix of ranked). */
  readonly #fitting = lruMap<number, Fitting>();

  constructor(of: ReadonlyMap<Domain, number>) {
    this.of = of;
    this.ranked = [...of.keys()].sort((a, b) => of.get(b)! - of.get(a)! || (a.key < b.key ? -1 : 1));
  }

  fitting(need: number): Fitting {
    let found = this.#fitting.get(need);
    if (found === undefined) {
      let count = 0;
      while (count < this.ranked.length && this.of.get(this.ranked[count]!)! >= need) count++;
      const domains = this.ranked.slice(0, count);
      this.#fitting.set(need, (found = { domains, hashes: Uint32Array.from(domains, (d) => d.hash) }));
    }
    return found;
  }
}

interface Fitting {
  readonly domains: readonly Domain[];
  readonly hashes: Uint32Array;
}

export function compilePack(rule: PackRule, snapshot: TopologySnapshot): CompiledRule {
  let domains: readonly Domain[] | undefined;
  /** Node name → its domain, to place a workload's bound Pods without a pass over the nodes. */
  let domainOf: ReadonlyMap<string, Domain> | undefined;
  // Per allowed set and request shape: replicas of a workload, and workloads of one shape, ask again.
  const rooms = new WeakMap<NodeSet, LRUCache<string, Room>>();
  const roomFor = (allowed: NodeSet, request: ResourceList): Room => {
    const shape = JSON.stringify(Object.entries(request).sort(([a], [b]) => (a < b ? -1 : 1)));
    let byShape = rooms.get(allowed);
    if (byShape === undefined) rooms.set(allowed, (byShape = lruMap()));
    let room = byShape.get(shape);
    if (room === undefined) {
      if (domains === undefined) {
        domains = domainsOf(rule, snapshot);
        domainOf = new Map(domains.flatMap((domain) => domain.nodes.map((node) => [node.name, domain] as const)));
      }
      byShape.set(shape, (room = new Room(roomIn(domains, snapshot, allowed, request))));
    }
    return room;
  };

  return {
    name: 'pack',
    hard: rule.mode === 'Required',
    evaluate({ pod, allowed }: RuleInput): RuleResult {
      const request = positive(pod.requests);
      const replicas = replicasOf(pod.facts.annotations);
      const workload = workloadKey(pod.facts.workload);
      const room = roomFor(allowed, request);
      if (room.ranked.length === 0) {
        const modelHolds = `no allowed node carries the label ${rule.level}`;
        return rule.mode === 'Required' ? output({ nodes: NodeSet.EMPTY, modelHolds }) : { dropped: modelHolds };
      }
      const bound = boundIn(room, domainOf!, snapshot, workload);
      const fits = (domain: Domain) => room.of.get(domain)! >= Math.max(1, replicas - (bound.get(domain) ?? 0));
      let home: Domain | undefined;
      for (const [domain, count] of bound) {
        const most = home === undefined ? 0 : bound.get(home)!;
        if (count > most || (count === most && domain.key < home!.key)) home = domain;
      }
      let chosen = home && fits(home) ? home : undefined;
      if (!chosen) {
        // Domains without the workload's Pods need room for all of it; those with some, for the rest.
        const whole = room.fitting(Math.max(1, replicas));
        const partly = [...bound.keys()].filter((domain) => fits(domain) && room.of.get(domain)! < replicas);
        chosen = rendezvous(workload, whole, partly);
      }
      const shape = describeRequest(request);
      if (!chosen) {
        const best = room.ranked[0]!;
        const modelHolds = `no ${rule.level} domain has room for ${replicas} × (${shape}); the roomiest, ${best.key}, has room for ${room.of.get(best)}`;
        if (rule.mode === 'Required') return output({ nodes: NodeSet.EMPTY, modelHolds });
        return output({
          preferred: [{ weight: PREFERRED_WEIGHT, preference: { matchExpressions: [...best.requirements] } }],
          warnings: [`pack: ${modelHolds}; the roomiest is preferred`],
        });
      }
      const why =
        chosen === home
          ? `${bound.get(chosen)} of the workload's Pods are bound there`
          : `the fitting domain that ranks first for workload ${workload}`;
      const notes = [
        `${rule.level} ${chosen.key}: room for ${room.of.get(chosen)} × (${shape}), ${replicas} replica(s) wanted; ${why}`,
      ];
      if (rule.mode === 'Preferred')
        return output({
          preferred: [{ weight: PREFERRED_WEIGHT, preference: { matchExpressions: [...chosen.requirements] } }],
          notes,
        });
      const modelHolds = `${chosen.set.size} nodes match ${chosen.requirements.map(describeRequirement).join(', ')}`;
      return output({ requirements: chosen.requirements, nodes: chosen.set, modelHolds, notes });
    },
  };
}

/** The replica count a workload declares on its pod template; 1 (the Pod alone) when absent or not a positive integer. */
export function replicasOf(annotations: Labels): number {
  const text = annotations[REPLICAS_ANNOTATION];
  if (text === undefined || !/^[1-9]\d{0,5}$/.test(text)) return 1;
  return Number(text);
}

/**
 * Domains at the rule's level, each named by its path of level values. A domain's requirement names the
 * outer levels too only when its value recurs under another path (rack "r1" in two blocks).
 */
function domainsOf(rule: PackRule, snapshot: TopologySnapshot): Domain[] {
  const path = rule.levels.slice(0, rule.levels.indexOf(rule.level) + 1);
  const byKey = new Map<string, { values: string[]; nodes: NodeInfo[] }>();
  for (const slot of snapshot.nodes.withLabel(rule.level).slots()) {
    const node = snapshot.nodes.bySlot(slot);
    if (!node) continue;
    const values = path.map((key) => node.labels[key]);
    if (values.some((value) => value === undefined)) continue;
    const key = values.join('/');
    let domain = byKey.get(key);
    if (!domain) byKey.set(key, (domain = { values: values as string[], nodes: [] }));
    domain.nodes.push(node);
  }
  const paths = new Map<string, number>();
  for (const { values } of byKey.values()) paths.set(values.at(-1)!, (paths.get(values.at(-1)!) ?? 0) + 1);
  return [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, { values, nodes }]) => {
      const value = values.at(-1)!;
      const keys = paths.get(value)! > 1 ? path : [rule.level];
      const requirements = keys.map((label) => ({
        key: label,
        operator: 'In' as const,
        values: [values[path.indexOf(label)]!],
      }));
      return { key, hash: fnv1a(key), value, requirements, nodes, set: NodeSet.of(nodes.map((node) => node.slot)) };
    });
}

/** Per domain, how many more Pods of `request` its allowed nodes hold: each node's free capacity (allocatable minus bound Pods' requests) in whole Pods. */
function roomIn(
  domains: readonly Domain[],
  snapshot: TopologySnapshot,
  allowed: NodeSet,
  request: ResourceList,
): Map<Domain, number> {
  const room = new Map<Domain, number>();
  const resources = Object.entries(request);
  for (const domain of domains) {
    let pods = 0;
    let any = false;
    for (const node of domain.nodes) {
      if (!allowed.has(node.slot)) continue;
      any = true;
      const used = snapshot.pods.requested(node.name) ?? {};
      let fit = Number.POSITIVE_INFINITY;
      for (const [resource, amount] of resources)
        fit = Math.min(fit, Math.floor(((node.allocatable[resource] ?? 0) - (used[resource] ?? 0)) / amount));
      // A Pod that requests nothing fits wherever the node still takes Pods.
      if (fit === Number.POSITIVE_INFINITY) fit = Math.max(0, Math.floor((node.allocatable.pods ?? 110_000) / 1000));
      pods += Math.max(0, fit);
    }
    if (any) room.set(domain, pods);
  }
  return room;
}

/** The workload's bound Pods per domain. */
function boundIn(
  room: Room,
  domainOf: ReadonlyMap<string, Domain>,
  snapshot: TopologySnapshot,
  workload: string,
): Map<Domain, number> {
  const bound = new Map<Domain, number>();
  for (const [node, count] of snapshot.pods.workloadNodes(workload) ?? []) {
    const domain = domainOf.get(node);
    if (domain && room.of.has(domain)) bound.set(domain, (bound.get(domain) ?? 0) + count);
  }
  return bound;
}

/**
 * Highest random weight: each workload ranks the domains its own way, so workloads spread, and one that stops
 * fitting moves only its own. A score is one integer mix per domain, so ranking 250 racks costs about a microsecond.
 */
function rendezvous(workload: string, whole: Fitting, partly: readonly Domain[]): Domain | undefined {
  const seed = fnv1a(workload);
  let best: Domain | undefined;
  let bestScore = -1;
  const consider = (domain: Domain, score: number) => {
    if (score > bestScore || (score === bestScore && best && domain.key < best.key)) {
      best = domain;
      bestScore = score;
    }
  };
  const { domains, hashes } = whole;
  for (let i = 0; i < hashes.length; i++) consider(domains[i]!, mix(seed ^ hashes[i]!));
  for (const domain of partly) consider(domain, mix(seed ^ domain.hash));
  return best;
}

/** MurmurHash3's finaliser: every input bit moves every output bit. */
function mix(value: number): number {
  let h = value;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function positive(requests: ResourceList): ResourceList {
  return Object.fromEntries(Object.entries(requests).filter(([, amount]) => amount > 0));
}

function describeRequest(request: ResourceList): string {
  const parts = Object.entries(request).map(([name, amount]) => `${name}=${formatQuantity(amount)}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing requested';
}

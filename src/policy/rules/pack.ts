// pack: every Pod of one workload inside one domain of a node hierarchy (a
// rack, a block), chosen so that the domain's free capacity holds the whole
// workload. The choice is derived, never stored: the domain that already
// holds the workload's bound Pods while it still has room for the rest, else
// the fitting domain that ranks highest for the workload by rendezvous
// hashing. The same workload on the same facts always gets the same domain,
// so replicas agree with each other and with a restarted topogate. Pods
// admitted into a domain but not bound yet (a gang held at a scheduling gate,
// or replicas the scheduler has not reached) count there as if bound.

import { formatQuantity } from '../../kube/quantity.ts';
import type { Labels, PreferredSchedulingTerm } from '../../kube/types.ts';
import { workloadKey } from '../../kube/workload-identity.ts';
import type { ResourceList, TopologySnapshot } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import type { PackRule } from '../types.ts';
import type { Domain } from './packLayout.ts';
import { rendezvous } from './packRendezvous.ts';
import { placedIn, type Room } from './packRoom.ts';
import { PackRooms } from './packRooms.ts';
import { describeRequirement, output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';

export const REPLICAS_ANNOTATION = 'topogate.dev/replicas';
const PREFERRED_WEIGHT = 100;

type PreferredIn = (domain: Domain) => readonly PreferredSchedulingTerm[];

export function compilePack(rule: PackRule, snapshot: TopologySnapshot): CompiledRule {
  const rooms = new PackRooms(rule, snapshot);
  const preferredIn = preferredTerms();
  return {
    name: 'pack',
    hard: rule.mode === 'Required',
    evaluate({ pod, allowed }: RuleInput): RuleResult {
      const request = positive(pod.requests);
      const replicas = replicasOf(pod.facts.annotations);
      const workload = workloadKey(pod.facts.workload);
      const occupancy = pod.occupancy;
      const counted = rooms.counted(allowed, request, occupancy);
      const pending = rooms.pendingIn(occupancy, counted.layout);
      const room = rooms.lessPending(counted, pending, request);
      if (!room.anyAllowed) {
        const modelHolds = `no allowed node carries the label ${rule.level}`;
        return rule.mode === 'Required' ? output({ nodes: NodeSet.EMPTY, modelHolds }) : { dropped: modelHolds };
      }
      const bound = placedIn(room, occupancy, pending, workload);
      const home = homeOf(bound);
      const chosen = chooseDomain(rule, room, bound, home, replicas, workload);
      const shape = describeRequest(request);
      if (!chosen) return noDomainFits(rule, room, `${replicas} × (${shape})`, preferredIn);
      const why =
        chosen === home
          ? `${bound.get(chosen)} of the workload's Pods are bound or held there`
          : `the fitting domain that ranks first for workload ${workload}`;
      const note = `${rule.level} ${chosen.key}: room for ${room.of(chosen)} × (${shape}), ${replicas} replica(s) wanted; ${why}`;
      return packedInto(rule, chosen, note, preferredIn);
    },
  };
}

/** The domain holding most of the workload's Pods, ties by key. */
function homeOf(bound: ReadonlyMap<Domain, number>): Domain | undefined {
  let home: Domain | undefined;
  for (const [domain, count] of bound) {
    const most = home === undefined ? 0 : bound.get(home)!;
    if (count > most || (count === most && domain.key < home!.key)) home = domain;
  }
  return home;
}

/** The home while it still has room for the rest, else the fitting domain that ranks first for the workload. */
function chooseDomain(
  rule: PackRule,
  room: Room,
  bound: ReadonlyMap<Domain, number>,
  home: Domain | undefined,
  replicas: number,
  workload: string,
): Domain | undefined {
  const fits = (domain: Domain) => room.of(domain) >= Math.max(1, replicas - (bound.get(domain) ?? 0));
  if (home && fits(home)) return home;
  // Domains without the workload's Pods need room for all of it; those with some, for the rest.
  const partly = [...bound.keys()].filter((domain) => fits(domain) && room.of(domain) < replicas);
  return rendezvous(workload, room, Math.max(1, replicas), partly, rule.fit === 'BestFit');
}

/** No domain has room for the workload: Required finds no node, Preferred prefers the roomiest. */
function noDomainFits(rule: PackRule, room: Room, wanted: string, preferredIn: PreferredIn): RuleResult {
  const best = room.roomiest();
  const modelHolds = `no ${rule.level} domain has room for ${wanted}; the roomiest, ${best.key}, has room for ${room.of(best)}`;
  if (rule.mode === 'Required') return output({ nodes: NodeSet.EMPTY, modelHolds });
  return output({
    preferred: preferredIn(best),
    warnings: [`pack: ${modelHolds}; the roomiest is preferred`],
  });
}

function packedInto(rule: PackRule, chosen: Domain, note: string, preferredIn: PreferredIn): RuleResult {
  const notes = [note];
  if (rule.mode === 'Preferred')
    return output({
      preferred: preferredIn(chosen),
      notes,
    });
  const modelHolds = `${chosen.set.size} nodes match ${chosen.requirements.map(describeRequirement).join(', ')}`;
  return output({ requirements: chosen.requirements, nodes: chosen.set, modelHolds, notes });
}

/** One preferred term per domain, so that the decisions preferring it share the object (jsonText.ts). */
function preferredTerms(): PreferredIn {
  const terms = new WeakMap<Domain, readonly PreferredSchedulingTerm[]>();
  return (domain) => {
    let preferred = terms.get(domain);
    if (preferred === undefined) {
      preferred = [{ weight: PREFERRED_WEIGHT, preference: { matchExpressions: [...domain.requirements] } }];
      terms.set(domain, preferred);
    }
    return preferred;
  };
}

/** The replica count a workload declares on its pod template; 1 (the Pod alone) when absent or not a positive integer. */
export function replicasOf(annotations: Labels): number {
  const text = annotations[REPLICAS_ANNOTATION];
  if (text === undefined || !/^[1-9]\d{0,5}$/.test(text)) return 1;
  return Number(text);
}

function positive(requests: ResourceList): ResourceList {
  return Object.fromEntries(Object.entries(requests).filter(([, amount]) => amount > 0));
}

function describeRequest(request: ResourceList): string {
  const parts = Object.entries(request).map(([name, amount]) => `${name}=${formatQuantity(amount)}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing requested';
}

// The rooms one compiled pack rule keeps. Per allowed set and request shape: replicas of a workload, and
// workloads of one shape, ask again. A room counted at an older occupancy is brought up to date by the nodes whose
// Pods changed since, not counted anew. Pods held to a domain but not bound yet are found once per occupancy, and
// taken out of a room once per room.

import type { Occupancy, PendingUnder, ResourceList, TopologySnapshot } from '../../topology/model.ts';
import type { NodeSet } from '../../topology/nodeset.ts';
import { lruMap, type MemoMap } from '../memo.ts';
import type { PackRule } from '../types.ts';
import { layoutOf, type Domain, type Layout } from './packLayout.ts';
import { countsAfter, countsIn, fresh, OUTSIDE, pendingByDomain, podsTaken, Room } from './packRoom.ts';

export class PackRooms {
  readonly #rule: PackRule;
  readonly #snapshot: TopologySnapshot;
  #layout: Layout | undefined;
  readonly #rooms = new WeakMap<NodeSet, MemoMap<string, Room>>();
  readonly #pending = new WeakMap<Occupancy, ReadonlyMap<Domain, PendingUnder>>();
  readonly #lessPending = new WeakMap<Room, Room>();

  constructor(rule: PackRule, snapshot: TopologySnapshot) {
    this.#rule = rule;
    this.#snapshot = snapshot;
  }

  /** The room among `allowed` for Pods of `request` at `occupancy`, held Pods not taken out. */
  counted(allowed: NodeSet, request: ResourceList, occupancy: Occupancy): Room {
    const shape = JSON.stringify(Object.entries(request).sort(([a], [b]) => (a < b ? -1 : 1)));
    let byShape = this.#rooms.get(allowed);
    if (byShape === undefined) this.#rooms.set(allowed, (byShape = lruMap()));
    const kept = byShape.get(shape);
    if (kept?.occupancy === occupancy) return kept;
    const layout = (this.#layout ??= layoutOf(this.#rule, this.#snapshot));
    const changed = kept && occupancy.changedSince(kept.occupancy);
    const room = changed
      ? new Room(
          layout,
          countsAfter(kept, changed, this.#snapshot, allowed, request, occupancy),
          occupancy,
          kept.anyAllowed,
        )
      : fresh(layout, countsIn(layout.domains, allowed, request, occupancy), occupancy);
    byShape.set(shape, room);
    return room;
  }

  /** The Pods held to each domain and not bound yet at `occupancy`. */
  pendingIn(occupancy: Occupancy, layout: Layout): ReadonlyMap<Domain, PendingUnder> {
    let pending = this.#pending.get(occupancy);
    if (pending === undefined) this.#pending.set(occupancy, (pending = pendingByDomain(this.#rule, layout, occupancy)));
    return pending;
  }

  /** `room` with the `pending` Pods taken out. */
  lessPending(room: Room, pending: ReadonlyMap<Domain, PendingUnder>, request: ResourceList): Room {
    if (pending.size === 0) return room;
    let less = this.#lessPending.get(room);
    if (less === undefined) {
      const counts = room.counts.slice();
      for (const [domain, held] of pending)
        if (counts[domain.index] !== OUTSIDE)
          counts[domain.index] = Math.max(0, counts[domain.index]! - podsTaken(held, request));
      this.#lessPending.set(room, (less = new Room(room.layout, counts, room.occupancy, room.anyAllowed)));
    }
    return less;
  }
}

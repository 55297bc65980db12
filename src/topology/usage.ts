// The requests of bound Pods per node and the nodes of each workload, kept up
// to date one Pod at a time (a bind, a finish, a delete costs one node's sum
// and one workload's map); snapshots share what did not change.

import { CowMap } from './cow/map.ts';
import type { PodUsageIndex, ResourceList } from './model.ts';
import type { PodUsage } from './read/pod-usage.ts';

export class PodUsageTable {
  readonly #pods = new Map<string, PodUsage>();
  readonly #requested = new CowMap<ResourceList>();
  readonly #workloads = new CowMap<ReadonlyMap<string, number>>();

  /** Sets (or with undefined, clears) one Pod's usage; false when nothing changed. */
  set(key: string, usage: PodUsage | undefined): boolean {
    const before = this.#pods.get(key);
    if (before === undefined && usage === undefined) return false;
    if (before && usage && sameUsage(before, usage)) return false;
    if (before) this.#account(before, -1);
    if (usage) {
      this.#pods.set(key, usage);
      this.#account(usage, 1);
    } else this.#pods.delete(key);
    return true;
  }

  freeze(): PodUsageIndex {
    const requested = this.#requested.freeze();
    const workloads = this.#workloads.freeze();
    return { requested: (node) => requested.get(node), workloadNodes: (workload) => workloads.get(workload) };
  }

  #account({ node, requests, workload }: PodUsage, sign: 1 | -1): void {
    const sum: Record<string, number> = { ...this.#requested.get(node) };
    for (const [resource, amount] of Object.entries(requests)) {
      const next = (sum[resource] ?? 0) + sign * amount;
      if (next === 0) delete sum[resource];
      else sum[resource] = next;
    }
    if (Object.keys(sum).length === 0) this.#requested.delete(node);
    else this.#requested.set(node, sum);

    const nodes = new Map(this.#workloads.get(workload));
    const count = (nodes.get(node) ?? 0) + sign;
    if (count > 0) nodes.set(node, count);
    else nodes.delete(node);
    if (nodes.size === 0) this.#workloads.delete(workload);
    else this.#workloads.set(workload, nodes);
  }
}

function sameUsage(a: PodUsage, b: PodUsage): boolean {
  if (a.node !== b.node || a.workload !== b.workload) return false;
  const keys = Object.keys(a.requests);
  return keys.length === Object.keys(b.requests).length && keys.every((key) => a.requests[key] === b.requests[key]);
}

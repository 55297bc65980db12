// A synthetic fleet with a known zone > block > rack structure, for discover's tests and benchmark:
// in-rack ≈0.1 ms, in-block ≈0.25, in-zone ≈0.6, each pair of zones 1–2.5 ms apart; every round trip
// ±noise, a share of the pairs missing, a few degraded nodes adding a constant to all of theirs, and a
// share of the zone labels wrong. Seeded: the same options give the same fleet.

import type { NodeZone, RttPair } from '../src/discover/types.ts';
import { random as mulberry32 } from './cluster.ts';

export { mulberry32 };

export interface FleetOptions {
  readonly seed: number;
  readonly zones: number;
  readonly blocksPerZone: number;
  readonly racksPerBlock: number;
  readonly nodesPerRack: number;
  readonly noise?: number;
  readonly missing?: number;
  readonly degraded?: number;
  readonly degradedMs?: number;
  readonly wrongLabels?: number;
  /** Zone × zone round trips (default: each pair of zones 1–2.5 ms at random). */
  readonly zoneRttMs?: readonly (readonly number[])[];
}

export interface Fleet {
  readonly pairs: RttPair[];
  readonly nodes: NodeZone[];
  /** The true groups per level, coarsest first: zone, block, rack. */
  readonly truth: readonly (readonly string[])[];
  readonly names: readonly string[];
  readonly wrong: ReadonlySet<string>;
  readonly degraded: ReadonlySet<string>;
}

export function syntheticFleet(options: FleetOptions): Fleet {
  const { zones, blocksPerZone, racksPerBlock, nodesPerRack } = options;
  const random = mulberry32(options.seed);
  const noise = options.noise ?? 0.15;
  const missing = options.missing ?? 0.35;
  const names: string[] = [];
  const zone: number[] = [];
  const block: number[] = [];
  const rack: number[] = [];
  for (let z = 0; z < zones; z++)
    for (let b = 0; b < blocksPerZone; b++)
      for (let r = 0; r < racksPerBlock; r++)
        for (let n = 0; n < nodesPerRack; n++) {
          names.push(`node-${z}-${b}-${r}-${n}`);
          zone.push(z);
          block.push(z * blocksPerZone + b);
          rack.push((z * blocksPerZone + b) * racksPerBlock + r);
        }
  const between = Array.from(
    { length: zones * zones },
    (_, at) => options.zoneRttMs?.[Math.floor(at / zones)]![at % zones] ?? 1 + 1.5 * random(),
  );
  const size = names.length;
  const offset = new Float64Array(size);
  const degraded = new Set<string>();
  while (degraded.size < (options.degraded ?? 0)) {
    const slot = Math.floor(random() * size);
    offset[slot] = options.degradedMs ?? 3;
    degraded.add(names[slot]!);
  }
  const pairs: RttPair[] = [];
  for (let a = 0; a < size; a++)
    for (let b = a + 1; b < size; b++) {
      if (random() < missing) continue;
      const base =
        rack[a] === rack[b]
          ? 0.1
          : block[a] === block[b]
            ? 0.25
            : zone[a] === zone[b]
              ? 0.6
              : between[Math.min(zone[a]!, zone[b]!) * zones + Math.max(zone[a]!, zone[b]!)]!;
      const rttMs = base * (1 + noise * (2 * random() - 1)) + offset[a]! + offset[b]!;
      pairs.push({ a: names[a]!, b: names[b]!, rttMs });
    }
  const wrong = new Set<string>();
  const nodes = names.map((name, slot) => {
    if (zones > 1 && random() < (options.wrongLabels ?? 0)) {
      wrong.add(name);
      const other = (zone[slot]! + 1 + Math.floor(random() * (zones - 1))) % zones;
      return { name, zone: `zone-${other}` };
    }
    return { name, zone: `zone-${zone[slot]}` };
  });
  const truth = [zone, block, rack].map((level) => level.map(String));
  return { pairs, nodes, truth, names, wrong, degraded };
}

/** Pair F1 of two partitions given as a group per node (pairs of nodes in one group). */
export function pairF1(truth: readonly string[], found: readonly string[]): number {
  const count = (keys: string[]) => {
    const sizes = new Map<string, number>();
    for (const key of keys) sizes.set(key, (sizes.get(key) ?? 0) + 1);
    return [...sizes.values()].reduce((sum, n) => sum + (n * (n - 1)) / 2, 0);
  };
  const both = count(truth.map((group, slot) => `${group}|${found[slot]}`));
  return both === 0 ? 0 : (2 * both) / (count([...truth]) + count([...found]));
}

// Wrong zone labels: the level the labels match best (pair F1) is the measured zone level; a node whose
// label differs from what a clear majority of the other nodes of its measured group carry is mislabeled.

import { ZONE_LABEL } from '../kube/labels.ts';
import type { LabelMatch, Mislabel } from './types.ts';

/** Below this pair F1 the labels match no level, and no node is called mislabeled. */
const MIN_AGREEMENT = 0.5;
/** The share of a group's other labelled nodes that must carry one value for it to be the group's. */
const MAJORITY = 0.75;

export interface LabelFindings {
  readonly match: LabelMatch | undefined;
  readonly mislabeled: readonly Mislabel[];
}

/** `groups[level][slot]`: group names, level 0 the coarsest; `zones[slot]`: the label, if any. */
export function zoneFindings(
  groups: readonly (readonly string[])[],
  zones: readonly (string | undefined)[],
  names: readonly string[],
): LabelFindings {
  if (zones.every((zone) => zone === undefined)) return { match: undefined, mislabeled: [] };
  let best: LabelMatch | undefined;
  groups.forEach((group, level) => {
    const agreement = pairF1(zones, group);
    if (best === undefined || agreement > best.agreement) best = { label: ZONE_LABEL, level, agreement };
  });
  if (best === undefined || best.agreement < MIN_AGREEMENT) return { match: best, mislabeled: [] };
  const group = groups[best.level]!;
  const counts = new Map<string, Map<string, number>>();
  zones.forEach((zone, slot) => {
    if (zone === undefined) return;
    const inGroup = counts.get(group[slot]!) ?? new Map<string, number>();
    inGroup.set(zone, (inGroup.get(zone) ?? 0) + 1);
    counts.set(group[slot]!, inGroup);
  });
  const mislabeled: Mislabel[] = [];
  zones.forEach((zone, slot) => {
    if (zone === undefined) return;
    const inGroup = counts.get(group[slot]!)!;
    let others = 0;
    let top: string | undefined;
    let topCount = 0;
    for (const [value, count] of inGroup) {
      const without = value === zone ? count - 1 : count;
      others += without;
      if (without > topCount) [top, topCount] = [value, without];
    }
    if (top !== undefined && top !== zone && topCount >= 2 && topCount >= MAJORITY * others)
      mislabeled.push({ node: names[slot]!, label: ZONE_LABEL, value: zone, measured: top });
  });
  return { match: best, mislabeled };
}

/** Pair F1 of two partitions over the slots where `labels` has a value. */
function pairF1(labels: readonly (string | undefined)[], group: readonly string[]): number {
  const byLabel = new Map<string, number>();
  const byGroup = new Map<string, number>();
  const byBoth = new Map<string, number>();
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  labels.forEach((label, slot) => {
    if (label === undefined) return;
    add(byLabel, label);
    add(byGroup, group[slot]!);
    add(byBoth, `${group[slot]!}\u0000${label}`);
  });
  const pairs = (map: Map<string, number>) => [...map.values()].reduce((sum, n) => sum + (n * (n - 1)) / 2, 0);
  const both = pairs(byBoth);
  const [sameLabel, sameGroup] = [pairs(byLabel), pairs(byGroup)];
  return both === 0 ? 0 : (2 * both) / (sameLabel + sameGroup);
}

// Topology from measurement: node-pair round trips → levels of groups, how sure each is, degraded nodes,
// and the zone labels that disagree with where their nodes measure. Pure: the CLI and the writer call it.

import { confidences } from './confidence.ts';
import { zoneFindings } from './labels.ts';
import { cuts } from './levels.ts';
import { averageLinkage } from './linkage.ts';
import { rttMatrix } from './matrix.ts';
import { groupNames } from './names.ts';
import { nearestNeighbours } from './neighbours.ts';
import { correctedRtt, degradedOffsets } from './offsets.ts';
import { dropOutlierPairs } from './outliers.ts';
import type { Discovery, NodeZone, RttPair } from './types.ts';

/** Past this many levels a hierarchy is noise read as structure (and Kueue takes at most 8 with hostname). */
export const MAX_LEVELS = 7;

export function discover(pairs: readonly RttPair[], nodes: readonly NodeZone[] = []): Discovery {
  const matrix = rttMatrix(pairs);
  const { names, size } = matrix;
  const neighbours = nearestNeighbours(matrix);
  const offsets = degradedOffsets(matrix, neighbours);
  const rtt = correctedRtt(matrix, offsets);
  const outliers = dropOutlierPairs(rtt, size, neighbours);
  const finestFirst = cuts(averageLinkage(rtt, size), rtt, size).slice(0, MAX_LEVELS);
  const sure = confidences(finestFirst, rtt, size);
  const coarsestFirst = finestFirst.map((_, index) => finestFirst.length - 1 - index);
  const groups = groupNames(
    coarsestFirst.map((index) => finestFirst[index]!.group),
    names,
  );
  const zoneOf = new Map(nodes.map((node) => [node.name, node.zone]));
  const { match, mislabeled } = zoneFindings(
    groups,
    names.map((name) => zoneOf.get(name)),
    names,
  );
  const measured = new Set(names);
  return {
    levels: groups.length,
    nodes: Object.fromEntries(names.map((name, slot) => [name, groups.map((level) => level[slot]!)])),
    mislabeled,
    tiers: coarsestFirst.map((index, level) => {
      const cut = finestFirst[index]!;
      return {
        level,
        groups: cut.groups,
        thresholdMs: round(cut.thresholdMs),
        separation: round(cut.separation),
        confidence: round(sure[index]!),
      };
    }),
    degraded: offsets.degraded.map((slot) => ({ node: names[slot]!, offsetMs: round(offsets.bySlot[slot]!) })),
    zoneLabels: match && { ...match, agreement: round(match.agreement) },
    pairs: { measured: matrix.measured, possible: (size * (size - 1)) / 2, outliers },
    unmeasured: nodes.filter((node) => !measured.has(node.name)).map((node) => node.name),
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000;

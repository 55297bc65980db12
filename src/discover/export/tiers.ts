// Tiers number the derived levels as Volcano does: tier 1 the finest (closest to the nodes), tier K the
// coarsest (level 0). The finest stays tier 1 when a coarser level appears or goes.

export const tierOf = (level: number, levels: number): number => levels - level;
export const tierLabel = (tier: number): string => `topogate.dev/tier-${tier}`;

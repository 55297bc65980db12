// The facts `discover` works on and what it answers: plain, immutable data.

/** One measured node pair: its typical (median) round trip. */
export interface RttPair {
  readonly a: string;
  readonly b: string;
  readonly rttMs: number;
}

/** A node's zone label, as its Node object carries it (undefined: no label). */
export interface NodeZone {
  readonly name: string;
  readonly zone: string | undefined;
}

/** How one derived level was found, and how sure it is. */
export interface Tier {
  /** 0 the coarsest. */
  readonly level: number;
  readonly groups: number;
  /** Node pairs closer than this are in one group at this level (the geometric middle of the gap). */
  readonly thresholdMs: number;
  /** The closest pair of groups apart over the farthest pair joined (both robust quantiles): above 1, a gap. */
  readonly separation: number;
  /** The share of the measured node pairs this level decides that fall on its threshold's side its groups say. */
  readonly confidence: number;
}

export interface DegradedNode {
  readonly node: string;
  /** What the node adds to each of its round trips, removed before grouping. */
  readonly offsetMs: number;
}

export interface Mislabel {
  readonly node: string;
  readonly label: string;
  readonly value: string;
  /** The value the other nodes of its measured group carry. */
  readonly measured: string;
}

/** Which level the zone labels match best, and how well (pair F1). */
export interface LabelMatch {
  readonly label: string;
  readonly level: number;
  readonly agreement: number;
}

export interface Discovery {
  readonly levels: number;
  /** Node → its group at each level, level 0 first. */
  readonly nodes: Readonly<Record<string, readonly string[]>>;
  readonly mislabeled: readonly Mislabel[];
  readonly tiers: readonly Tier[];
  readonly degraded: readonly DegradedNode[];
  readonly zoneLabels: LabelMatch | undefined;
  /** Node pairs measured, possible among the nodes named, and left out as outliers. */
  readonly pairs: { readonly measured: number; readonly possible: number; readonly outliers: number };
  /** Nodes of the NodeList that no pair names. */
  readonly unmeasured: readonly string[];
}

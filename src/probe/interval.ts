// The adaptive probe round: halve it while a link is changing (to follow a
// change quickly), stretch it by a quarter per calm round, inside fixed bounds
// derived from --interval so that CPU and bytes per node stay bounded.

export interface IntervalBounds {
  readonly baseMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

/** Never faster than a quarter of the base (and 50 ms), never slower than twice it. */
export function intervalBounds(baseMs: number): IntervalBounds {
  return { baseMs, minMs: Math.max(50, Math.min(baseMs, baseMs / 4)), maxMs: baseMs * 2 };
}

export function nextInterval(currentMs: number, changing: boolean, bounds: IntervalBounds): number {
  return changing ? Math.max(bounds.minMs, currentMs / 2) : Math.min(bounds.maxMs, currentMs * 1.25);
}

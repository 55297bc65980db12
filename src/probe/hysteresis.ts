// When a new figure counts as a change: beyond a relative band around the old
// one, with an absolute floor so that loopback-scale RTTs (tens of µs) do not
// flap on scheduler noise.

export interface Band {
  /** Fraction of the old value, e.g. 0.2 for ±20%. */
  readonly relative: number;
  /** Never finer than this, in the figure's unit (ms for RTTs). */
  readonly floor: number;
}

/** p50: ±20% or 0.25 ms, whichever is wider. */
export const MEDIAN_BAND: Band = { relative: 0.2, floor: 0.25 };
/**
 * A level shift of a zone's window, which also makes the agent probe faster:
 * coarser than MEDIAN_BAND, since a single agent's round of a few samples is
 * noisy (±0.3 ms on a busy host's loopback) where the writer's merged median is not.
 */
export const SHIFT_BAND: Band = { relative: 0.3, floor: 0.5 };
/** p99 is noisier: ±50% or 0.5 ms. */
export const TAIL_BAND: Band = { relative: 0.5, floor: 0.5 };

/** Throughput: a bounded transfer is noisy, ±25% or 0.1 Gbps. */
export const BANDWIDTH_BAND: Band = { relative: 0.25, floor: 0.1 };

export function moved(old: number, next: number, band: Band): boolean {
  return Math.abs(next - old) > Math.max(band.relative * old, band.floor);
}

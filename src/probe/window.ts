// The recent round trips an agent measured towards one zone: at most
// maxSamples, none older than maxAgeMs. A level shift (every one of the last
// shiftRounds rounds beyond the hysteresis band of the window's median, the
// same way) drops the older samples, so the median follows a changed link in
// shiftRounds rounds instead of half a window. The zone counts as changing
// (probe faster) from the second such round on: one late answer is noise.

import { median } from '../stats/order.ts';
import { add, bucketOf } from './histogram.ts';
import { type Band, SHIFT_BAND, moved } from './hysteresis.ts';

export interface WindowLimits {
  readonly maxSamples: number;
  readonly maxAgeMs: number;
  readonly shiftRounds: number;
  readonly band: Band;
}

export const DEFAULT_WINDOW: WindowLimits = { maxSamples: 256, maxAgeMs: 60_000, shiftRounds: 3, band: SHIFT_BAND };

export interface Sample {
  /** The peer Pod's name, so that a peer that drops out takes its samples along. */
  readonly peer: string;
  readonly ms: number;
  readonly at: number;
}

export class ZoneWindow {
  readonly #limits: WindowLimits;
  #samples: (Sample & { readonly round: number })[] = [];
  #round = 0;
  /** Consecutive rounds beyond the band, signed by direction. */
  #streak = 0;

  constructor(limits: WindowLimits = DEFAULT_WINDOW) {
    this.#limits = limits;
  }

  /** Adds one round's samples; answers whether the zone looks like it is changing. */
  addRound(samples: readonly Sample[], now: number): boolean {
    this.#round += 1;
    const before = this.median();
    const roundMedian = medianOrNone(samples);
    for (const sample of samples) this.#samples.push({ ...sample, round: this.#round });
    this.#trim(now);
    if (before === undefined || roundMedian === undefined) {
      this.#streak = 0;
      return false;
    }
    if (!moved(before, roundMedian, this.#limits.band)) {
      this.#streak = 0;
      return false;
    }
    const direction = roundMedian > before ? 1 : -1;
    this.#streak = Math.sign(this.#streak) === direction ? this.#streak + direction : direction;
    const streak = Math.abs(this.#streak);
    if (streak >= this.#limits.shiftRounds) {
      const since = this.#round - this.#limits.shiftRounds;
      this.#samples = this.#samples.filter((s) => s.round > since);
      this.#streak = 0;
    }
    return streak >= 2;
  }

  /** Forgets a peer that dropped out. */
  drop(peer: string): void {
    this.#samples = this.#samples.filter((s) => s.peer !== peer);
  }

  trim(now: number): void {
    this.#trim(now);
  }

  get size(): number {
    return this.#samples.length;
  }

  median(): number | undefined {
    return medianOrNone(this.#samples);
  }

  buckets(): Map<number, number> {
    const out = new Map<number, number>();
    for (const { ms } of this.#samples) add(out, bucketOf(ms));
    return out;
  }

  #trim(now: number): void {
    const oldest = now - this.#limits.maxAgeMs;
    let first = 0;
    while (first < this.#samples.length && this.#samples[first]!.at < oldest) first += 1;
    first = Math.max(first, this.#samples.length - this.#limits.maxSamples);
    if (first > 0) this.#samples = this.#samples.slice(first);
  }
}

function medianOrNone(samples: readonly Pick<Sample, 'ms'>[]): number | undefined {
  return samples.length === 0 ? undefined : median(samples.map((s) => s.ms));
}

// How long to wait before trying the API server again: doubling from a first delay up to a cap, each delay
// shortened by a random part of itself (jitter), so replicas that failed together do not retry together.

export interface BackoffOptions {
  /** The first delay; each failure in a row doubles it, up to maxMs. */
  readonly initialMs: number;
  readonly maxMs: number;
  /** The share of each delay that is random, 0 to 1: a delay lies in [base × (1 − jitter), base]. */
  readonly jitter?: number;
  /** Uniform in [0, 1); injected by tests. */
  readonly random?: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000 };
const DEFAULT_JITTER = 0.2;

export class Backoff {
  readonly #options: BackoffOptions;
  /** The delay before jitter of the last failure; 0 after a success. */
  #base = 0;

  constructor(options: BackoffOptions = DEFAULT_BACKOFF) {
    this.#options = options;
  }

  /** The delay before the next attempt, after one more failure in a row. Never above maxMs. */
  next(): number {
    const { initialMs, maxMs, jitter = DEFAULT_JITTER, random = Math.random } = this.#options;
    // Doubled from the last delay, not computed as initial × 2^n: a long outage stays at the cap, never Infinity.
    this.#base = Math.min(this.#base === 0 ? initialMs : this.#base * 2, maxMs);
    return Math.round(this.#base * (1 - Math.min(Math.max(jitter, 0), 1) * random()));
  }

  /** A success: the next failure waits the first delay again. */
  reset(): void {
    this.#base = 0;
  }
}

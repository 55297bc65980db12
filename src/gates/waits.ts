// Gated Pods that wait, each with the timer that looks at it again (at its --defer-max, or after a failed
// release), counted in topogate_gated_pods.

import type { Gauge } from 'prom-client';

export class GatedWaits {
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #gated: Gauge;
  readonly #due: (key: string) => void;

  /** `due`: what a wait's end does with its Pod's key. */
  constructor(gated: Gauge, due: (key: string) => void) {
    this.#gated = gated;
    this.#due = due;
  }

  has(key: string): boolean {
    return this.#timers.has(key);
  }

  keys(): IterableIterator<string> {
    return this.#timers.keys();
  }

  /** The Pod waits `ms`, whatever timer it had. */
  wait(key: string, ms: number): void {
    clearTimeout(this.#timers.get(key));
    this.#timers.set(
      key,
      setTimeout(() => this.#due(key), ms),
    );
    this.#gated.set(this.#timers.size);
  }

  forget(key: string): void {
    clearTimeout(this.#timers.get(key));
    this.#timers.delete(key);
    this.#gated.set(this.#timers.size);
  }

  forgetAll(): void {
    for (const key of [...this.#timers.keys()]) this.forget(key);
  }
}

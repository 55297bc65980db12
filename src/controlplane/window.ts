// A source's scrapes over the last window: the newest, the oldest still inside
// the window (what the newest is compared with), when it last answered and why
// it does not now. Holds at most window / interval + 1 entries.

export interface Scrape<T> {
  readonly at: number;
  readonly value: T;
}

export interface WindowView<T> {
  readonly newest?: Scrape<T>;
  /** The oldest scrape within the window, older than newest; what "in the window" is measured from. */
  readonly baseline?: Scrape<T>;
  readonly observedAt?: number;
  readonly error?: string;
}

export class ScrapeWindow<T> {
  readonly #windowMs: number;
  #scrapes: Scrape<T>[] = [];
  #error: string | undefined;

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  add(at: number, value: T): void {
    this.#scrapes.push({ at, value });
    // Keep one scrape at or before the window's start, so the window is covered whole.
    while (this.#scrapes.length > 2 && (this.#scrapes[1]?.at ?? at) <= at - this.#windowMs) this.#scrapes.shift();
    this.#error = undefined;
  }

  fail(error: string): void {
    this.#error = error;
  }

  view(): WindowView<T> {
    const newest = this.#scrapes.at(-1);
    const baseline = this.#scrapes.length > 1 ? this.#scrapes[0] : undefined;
    return {
      ...(newest && { newest, observedAt: newest.at }),
      ...(baseline && { baseline }),
      ...(this.#error !== undefined && { error: this.#error }),
    };
  }
}

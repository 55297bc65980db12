// How old a source's data is, as rules read it: the object's own observation
// time when it has one, else the source's last update; a failing source has
// no age, only its error.

import type { SourceName, TopologySnapshot } from '../../topology/model.ts';

/** A source a rule's decision reads through the clock, and when the object it reads was observed (if it says). */
export interface SourceReading {
  readonly source: SourceName;
  readonly observedAt?: number | undefined;
}

/** "failing (…)" or "stale (Ns old, max Ms)" when the rule must not trust the source now; undefined when it may. */
export function staleness(
  snapshot: TopologySnapshot,
  read: SourceReading,
  options: { now: number; maxSourceAgeMs: number },
): string | undefined {
  const error = failure(snapshot, read.source);
  if (error !== undefined) return `failing (${error})`;
  const at = observed(snapshot, read);
  if (at === undefined) return undefined;
  const age = options.now - at;
  return age > options.maxSourceAgeMs
    ? `stale (${Math.round(age / 1000)}s old, max ${Math.round(options.maxSourceAgeMs / 1000)}s)`
    : undefined;
}

/**
 * Until when (options.now at most this) none of the readings is failing or stale: till then no decision that
 * reads them depends on the clock. -Infinity when one is failing already.
 */
export function freshUntil(
  snapshot: TopologySnapshot,
  readings: readonly SourceReading[],
  maxSourceAgeMs: number,
): number {
  let until = Number.POSITIVE_INFINITY;
  for (const read of readings) {
    if (failure(snapshot, read.source) !== undefined) return Number.NEGATIVE_INFINITY;
    const at = observed(snapshot, read);
    if (at !== undefined) until = Math.min(until, at + maxSourceAgeMs);
  }
  return until;
}

// Two answers, not one object of both: a rule asks for every new Pod, and such an object is its garbage.

/** Why the source is failing; undefined when it is not. */
function failure(snapshot: TopologySnapshot, source: SourceName): string | undefined {
  return snapshot.sources.get(source)?.error || undefined;
}

/** When the data read was observed: the object's own time when it has one, else the source's last update. */
function observed(snapshot: TopologySnapshot, { source, observedAt }: SourceReading): number | undefined {
  return observedAt ?? snapshot.sources.get(source)?.updatedAt;
}

// What else held the CPU while a measurement ran: the time this process
// waited for a CPU (Linux /proc/self/schedstat) and the GC pauses. A p99 of
// microsecond work on a shared 2-core machine is read against these.

import { readFileSync } from 'node:fs';
import { constants, performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface Contention {
  /** Share of the wall time the main thread was runnable but waiting for a CPU; undefined off Linux. */
  readonly waitedShare?: number;
  readonly gcPauses: number;
  readonly gcMs: number;
  /** Of the pauses, the full (mark-compact) collections: what old-generation garbage costs. */
  readonly majorGcs: number;
}

function waitedNs(): number | undefined {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Starts watching; the returned function stops and reports (after the GC entries are delivered). */
export function watchContention(): () => Promise<Contention> {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  // The wait is read inside the timed window, so a wait between the two readings can never exceed it.
  const start = performance.now();
  const waitedBefore = waitedNs();
  return async () => {
    const waitedAfter = waitedNs();
    const end = performance.now();
    // Node queues a collection's entry on a native immediate, which runs before the event loop's next
    // immediates: after one turn every entry of the window is queued, delivered or not, however loaded the
    // machine (a fixed 20 ms wait missed the forced scavenge under a CPU-bound neighbour).
    await nextTurn();
    entries.push(...observer.takeRecords());
    observer.disconnect();
    const pauses = entries.filter((entry) => entry.startTime >= start && entry.startTime <= end);
    return {
      ...(waitedBefore === undefined || waitedAfter === undefined
        ? {}
        : { waitedShare: (waitedAfter - waitedBefore) / 1e6 / (end - start) }),
      gcPauses: pauses.length,
      gcMs: pauses.reduce((sum, entry) => sum + entry.duration, 0),
      majorGcs: pauses.filter((entry) => gcKind(entry) === constants.NODE_PERFORMANCE_GC_MAJOR).length,
    };
  };
}

function gcKind(entry: PerformanceEntry): number | undefined {
  return (entry as { readonly detail?: { readonly kind?: number } | null }).detail?.kind;
}

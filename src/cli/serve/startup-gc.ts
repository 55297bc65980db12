// Start-up's one-time allocations (a 10,000-node topology file is 32 MB of JSON, parsed at once) leave V8 with
// a young generation grown to its maximum and an old space full of holes, which it keeps: ~100 MB of RSS
// holding nothing. A memory-reducing full GC gives them back (collectFully). The same peak
// leaves glibc's heap full of free chunks between live ones (the parse's native buffers, V8's compiler
// zones), which stay resident until malloc_trim gives them back: ~7 MB at 10,000 nodes.

import type { Logger } from 'pino';
import type { TopologyProvider } from '../../ports/topology.ts';
import { collectFully, loadMallocTrim } from '../../server/trim.ts';
import { onListWorkerExit } from '../../sources/topology/off-thread.ts';
import { scavengeOnOneThread } from './scavenge.ts';

/** Returns whether glibc's heap was trimmed too (false where node:ffi or malloc_trim is missing). */
export function releaseStartUpGarbage(): boolean {
  collectFully();
  const mallocTrim = loadMallocTrim();
  mallocTrim?.(0n);
  return mallocTrim !== undefined;
}

/**
 * Once more when a live topology is first ready: its lists come after start-up (1.9 GB of JSON at 65,000 nodes,
 * parsed page by page), and left several times the heap resident. One memory-reducing collection, once. From then
 * on (at once for a topology from files) each scavenge runs on one thread (scavenge.ts).
 */
export function releaseWhenFirstReady(topology: TopologyProvider): void {
  if (topology.readiness().ready) return scavengeOnOneThread();
  const unsubscribe = topology.subscribe(() => {
    if (!topology.readiness().ready) return;
    unsubscribe();
    releaseStartUpGarbage();
    scavengeOnOneThread();
  });
}

/**
 * Each time the list worker ends (sources/topology/off-thread.ts), glibc's free memory is given back: the worker's
 * native buffers were freed in an arena of their own, and without a trim each relist's worker left more of it
 * resident (65,000 Nodes listed six times: RSS 284 → 369 MB at a 39 MB heap; trimmed, 205-236 MB, each trim
 * 7-14 ms of the event loop).
 */
export function trimAfterListWorkers(log: Logger): () => void {
  const mallocTrim = loadMallocTrim();
  return onListWorkerExit(() => {
    if (mallocTrim === undefined) return;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    mallocTrim(0n);
    const stallMs = Math.round(performance.now() - started);
    log.info({ rssBefore: before, rssAfter: process.memoryUsage.rss(), stallMs }, 'list worker ended: memory trimmed');
  });
}

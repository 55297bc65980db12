// Memory back to the system after a connection flood. The TLS state of
// thousands of connections lives in glibc's malloc, not in V8's heap; when they
// close it is free but stays resident, since glibc gives back on its own only
// the top of each arena (10,000 idle TLS connections left +130-190 MB of RSS
// for good). malloc_trim(0) gives back every free page. Node has no binding for
// it, so it is called through node:ffi (experimental in Node 26, loaded only
// once a flood has closed); where that or the symbol is missing (another
// libc, another Node), nothing is trimmed and MALLOC_ARENA_MAX=2 in the
// shipped environments still bounds the waste (docs/reliability.md).

import type { Server } from 'node:https';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';

export interface FloodTrimOptions {
  /** How often closed connections are counted (default 10 s). */
  readonly intervalMs?: number;
  /**
   * Connections closed since the last trim that make a flood (default 256): an API server's few reconnects do not.
   * The flood is over, and the trim done, once fewer than this many are open.
   */
  readonly minClosed?: number;
  /** Runs the check every intervalMs and answers how to stop (default: an unref'd setInterval); tests run it by hand. */
  readonly every?: (intervalMs: number, check: () => void) => () => void;
  readonly log: Logger;
  readonly registry: Registry;
}

type MallocTrim = (pad: bigint) => number;

/** glibc's malloc_trim through node:ffi, or undefined where either is missing. */
export function loadMallocTrim(): MallocTrim | undefined {
  // node:ffi warns once that it is experimental: the operator did not ask for it, and the trim's own log says
  // what it does (bin/installed.mjs silences type stripping's warning the same way).
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    const ffi = process.getBuiltinModule('node:ffi');
    const library = ffi?.dlopen(null, { malloc_trim: { arguments: ['u64'], return: 'i32' } });
    return library?.functions.malloc_trim;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * A full, memory-reducing collection of V8's heap. Node has no call for it without --expose-gc, so the flag is set
 * just long enough to fetch `gc` from a fresh context.
 */
export function collectFully(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

function everyInterval(intervalMs: number, check: () => void): () => void {
  const timer = setInterval(check, intervalMs).unref();
  return () => clearInterval(timer);
}

export function trimAfterFloods(server: Server, options: FloodTrimOptions): { stop(): void } {
  const { log, registry, intervalMs = 10_000, minClosed = 256 } = options;
  const trims = new Counter({
    name: 'topogate_memory_trims_total',
    help: `Times freed native memory was given back to the system after a flood of ${minClosed} or more connections closed.`,
    registers: [registry],
  });
  let open = 0;
  let closed = 0;
  let mallocTrim: MallocTrim | null | undefined = null;
  const count = (socket: Socket) => {
    open++;
    socket.once('close', () => (open--, closed++));
  };
  server.on('connection', count);
  const stopChecks = (options.every ?? everyInterval)(intervalMs, () => {
    // A trim stalls the loop (0.2-2 s after thousands of connections, with the load): not while a flood goes on.
    if (closed < minClosed || open >= minClosed) return;
    const closedNow = closed;
    closed = 0;
    if (mallocTrim === null) {
      mallocTrim = loadMallocTrim();
      if (mallocTrim === undefined) log.warn('freed memory cannot be given back after floods: no malloc_trim here');
    }
    if (mallocTrim === undefined) return;
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();
    // The closed sockets' objects still hold native memory (buffers, the parser) until V8 collects them, which an
    // idle server may not do for minutes: collected first, it is given back too (8,000-connection flood, load 23:
    // 1.12x the baseline after the trim alone, 1.00x after a collection and a trim).
    collectFully();
    const collected = performance.now();
    mallocTrim(0n);
    trims.inc();
    log.info(
      {
        closed: closedNow,
        rssMbBefore: Math.round(rssBefore / 2 ** 20),
        rssMbAfter: Math.round(process.memoryUsage.rss() / 2 ** 20),
        ms: Math.round(performance.now() - started),
        collectionMs: Math.round(collected - started),
      },
      'connections closed in a flood: freed memory given back to the system',
    );
  });
  return {
    stop() {
      stopChecks();
      server.off('connection', count);
    },
  };
}

// How long the event loop has just been blocked. A request whose bytes
// arrived while it was (a 2 MiB body being parsed, a long GC) waited that long
// before Node could parse its headers, which is where the budget's clock
// starts: so the budget counts this lag too, and a blocked loop gives safe
// answers, not late ones.

export interface LoopLag {
  /** The lag a request seen now may have waited through, in ms. */
  recentMs(): number;
  stop(): void;
}

/**
 * A timer every `intervalMs` notes how late it fires. Timers run before the loop reads sockets, so a request read
 * right after a block finds that block in the last tick's lateness, until the next tick, however long the process
 * then waited for a CPU; one read later in the same turn as the block finds it in the time since the last tick.
 */
export function watchLoopLag(intervalMs = 10): LoopLag {
  let lastTick = performance.now();
  let lastLateMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lastLateMs = Math.max(0, now - lastTick - intervalMs);
    lastTick = now;
  }, intervalMs).unref();
  return {
    recentMs: () => Math.max(lastLateMs, performance.now() - lastTick - intervalMs),
    stop: () => clearInterval(timer),
  };
}

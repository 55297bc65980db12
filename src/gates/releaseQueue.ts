// The gated Pods to plan, by key: up to `parallel` at once (each release is one PATCH, so a burst of gated Pods
// is not released one round trip at a time), never two of one Pod; a key queued while its Pod is in flight is
// planned again after.

export interface ReleaseQueue {
  add(key: string): void;
  addAll(keys: Iterable<string>): void;
  /** Forgets the keys not started. */
  clear(): void;
}

export function releaseQueue(
  parallel: number,
  plan: (key: string) => Promise<void>,
  failed: (key: string, error: unknown) => void,
): ReleaseQueue {
  const pending = new Set<string>();
  const inFlight = new Set<string>();

  function pump(): void {
    for (const key of pending) {
      if (inFlight.size >= parallel) return;
      if (inFlight.has(key)) continue;
      pending.delete(key);
      inFlight.add(key);
      plan(key)
        .catch((error: unknown) => failed(key, error))
        .finally(() => {
          inFlight.delete(key);
          pump();
        });
    }
  }

  return {
    add(key) {
      pending.add(key);
      pump();
    },
    addAll(keys) {
      for (const key of keys) pending.add(key);
      pump();
    },
    clear: () => pending.clear(),
  };
}

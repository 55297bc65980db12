// Reloads one at a time: a change met while a reload runs is read by one more run after it, however many
// changes came meanwhile, and every caller is answered when the runs it may have missed are done.

export interface OneAtATime {
  /** Runs `run` now, or once more after the run under way; resolves when no run is left. */
  request(): Promise<void>;
  /** The runs under way, if any. */
  settled(): Promise<void> | undefined;
}

/** `run` must not reject; once `stopped()` says so, no further run starts. */
export function oneAtATime(run: () => Promise<void>, stopped: () => boolean): OneAtATime {
  let running: Promise<void> | undefined;
  let again = false;
  return {
    request() {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          await run();
        } while (again && !stopped());
        running = undefined;
      })();
      return running;
    },
    settled: () => running,
  };
}

// Answering in turns. A request whose body has arrived waits for the end of
// the event loop's I/O phase (setImmediate runs after it), and then every
// request that arrived in that turn is decided and answered in one run.
// Answered inside its socket's read instead, each request ran between the TLS
// and HTTP work of the others, with the decision's code and data out of the
// CPU caches, and wrote its answer from within the TLS read. Under wrk -c25
// about 20 requests share a turn, and a request's median CPU is 7-12 % lower
// (docs/benchmarks.md, "Sixth look"). Alone, a request waits only for the
// rest of its own turn.

/** A function whose promise resolves after this turn's I/O, the same one for every caller in the turn. */
export type TurnGate = () => Promise<void>;

export function turnGate(): TurnGate {
  let turn: Promise<void> | undefined;
  return () =>
    (turn ??= new Promise((resolve) =>
      setImmediate(() => {
        turn = undefined;
        resolve();
      }),
    ));
}

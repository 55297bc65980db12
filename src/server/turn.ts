// Answering in turns, stage by stage. A request whose body has arrived waits
// for the end of the event loop's I/O phase (setImmediate runs after it); then
// the turn's requests are parsed, all of them, then decided, then encoded,
// then written. Answered inside its socket's read instead, each request ran
// between the TLS and HTTP work of the others, with the decision's code and
// data out of the CPU caches; run request by request within the turn, each
// decision still followed another request's TLS write and kernel send. Stage
// by stage, each stage's code and data stay warm across the turn. Under wrk
// -c25 about 20 requests share a turn; the turns made a request's CPU 7-12 %
// lower, the stages a further 28-30 % (docs/benchmarks.md, "Sixth look" and
// "Eighth look"). Alone, a request waits only for the rest of its own turn.

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

/**
 * Resolves once every other request of the turn has done its current stage: awaiting it queues the caller's
 * next stage behind theirs (the turn's requests resume from one gate, in one microtask queue).
 */
export function nextStage(): Promise<void> {
  return Promise.resolve();
}

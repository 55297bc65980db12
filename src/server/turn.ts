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
// "Eighth look"). Alone, a request waits only for the rest of its own turn;
// under load, for at most TURN_LIMIT - 1 others.

/** A function whose promise resolves after this turn's I/O, the same one for every caller in the turn. */
export type TurnGate = () => Promise<void>;

/**
 * Requests in one turn at most. A request decided in a turn is written only after the rest of the turn is
 * decided and encoded, which the budget's check before deciding cannot see: under 2× overload (100 connections,
 * each with a request in flight) turns held them all, and a fifth of the answers were decided and then sent past
 * the budget; with turns of 32, about one in ten (docs/benchmarks.md, "Ninth look"). 32 is more than the API
 * server's 25 idle connections per host, so a steady stream still shares one turn: turns of 16 halved the late
 * answers again, but split wrk -c25's turns, and the bench run with them read keep-alive throughput 5-10 % lower.
 */
const TURN_LIMIT = 32;

export function turnGate(limit = TURN_LIMIT): TurnGate {
  type Turn = PromiseWithResolvers<undefined> & { joined: number };
  let open: Turn | undefined;
  // At the end of the I/O, or once full: its requests then resume as soon as the read that filled it returns.
  const start = (turn: Turn) => {
    if (open === turn) open = undefined;
    turn.resolve(undefined);
  };
  const opened = (): Turn => {
    const turn: Turn = { ...Promise.withResolvers<undefined>(), joined: 0 };
    setImmediate(() => start(turn));
    return turn;
  };
  return () => {
    const turn = (open ??= opened());
    if (++turn.joined === limit) start(turn);
    return turn.promise;
  };
}

/**
 * Resolves once every other request of the turn has done its current stage: awaiting it queues the caller's
 * next stage behind theirs (the turn's requests resume from one gate, in one microtask queue).
 */
export function nextStage(): Promise<void> {
  return Promise.resolve();
}

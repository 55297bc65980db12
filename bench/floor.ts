// The machine's own tail for work of a given length. On this VM the host takes
// the vCPU away about 1,500 times a second for 10-40 µs (no steal time shows,
// and the guest's own timer fires only 250 times a second), so a 9 µs job is
// hit 1-4 % of the time and a p99 of microsecond work reads those gaps. Fixed
// arithmetic as long as the decisions' medians, timed between them, shows what
// p99 work with no variation of its own gets here (docs/benchmarks.md, "The
// machine's floor").

import { performance } from 'node:perf_hooks';
import { median } from '../src/stats/order.ts';

/** Pure arithmetic: no allocation, no memory traffic, the same instructions every call. */
export function spin(iterations: number): number {
  let x = 1;
  for (let j = 0; j < iterations; j++) x = (Math.imul(x, 31) + j) | 0;
  return x;
}

export interface FloorTimes {
  /** µs of each call of the work measured. */
  readonly work: Float64Array;
  /** µs of each spin() after it, as long as its kind's median call of the work. */
  readonly floor: Float64Array;
}

/**
 * Each call of `work` timed, and after it spin() for its kind, so that both see the same minute of the machine.
 * `prepare`, untimed, makes each call's input.
 */
export function timeWithFloor<Input = undefined>(
  count: number,
  work: (i: number, input: Input) => unknown,
  iterations: Int32Array,
  prepare: (i: number) => Input = () => undefined as Input,
): FloorTimes {
  const workMicros = new Float64Array(count);
  const floorMicros = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const input = prepare(i);
    let start = process.hrtime.bigint();
    work(i, input);
    workMicros[i] = Number(process.hrtime.bigint() - start) / 1000;
    start = process.hrtime.bigint();
    spin(iterations[i % iterations.length]!);
    floorMicros[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  return { work: workMicros, floor: floorMicros };
}

/** The median of every `kinds`-th sample from `kind` on. */
export function kindMedian(micros: Float64Array, kinds: number, kind: number): number {
  return median(micros.filter((_, i) => i % kinds === kind));
}

/** Scales each kind's iterations to its work's median; true when all were within 3 % already. */
export function retune(iterations: Int32Array, timed: FloorTimes): boolean {
  let matched = true;
  for (let kind = 0; kind < iterations.length; kind++) {
    const want = kindMedian(timed.work, iterations.length, kind);
    const got = kindMedian(timed.floor, iterations.length, kind);
    if (Math.abs(got - want) > 0.03 * want) matched = false;
    iterations[kind] = Math.max(1, Math.round((iterations[kind]! * want) / got));
  }
  return matched;
}

/**
 * spin() iterations per kind of a round-robin `work` of `kinds` kinds, tuned on short pilots in the loop that
 * measures (the JIT treats spin() by call site). After ten pilots on a busy machine the last estimate stands:
 * the measurement is checked with retune() and the report shows both medians side by side.
 */
export function tuneFloor<Input = undefined>(
  kinds: number,
  work: (i: number, input: Input) => unknown,
  prepare?: (i: number) => Input,
): Int32Array {
  const iterations = new Int32Array(kinds).fill(1_000);
  for (let pilot = 0; pilot < 10; pilot++)
    if (retune(iterations, timeWithFloor(kinds * 500, work, iterations, prepare))) break;
  return iterations;
}

export interface Interruptions {
  /** Times a second a thread spinning on the clock saw it jump by more than GAP_US. */
  readonly perSecond: number;
  /** Share of the wall time lost in those jumps. */
  readonly lostShare: number;
  readonly medianGapUs: number;
}

/** A jump between two clock readings in a tight loop longer than this (µs) is time the thread did not run. */
const GAP_US = 5;

/** Spins on the clock for `ms` and counts the jumps: what the host and kernel take from a busy thread. */
export function interruptions(ms: number): Interruptions {
  const gaps: number[] = [];
  // performance.now(), not hrtime.bigint(): a BigInt per reading would fill the young generation, and its
  // collections would count as gaps.
  const start = performance.now();
  let previous = start;
  for (let now = start; now < start + ms; now = performance.now()) {
    if (now - previous > GAP_US / 1000) gaps.push((now - previous) * 1000);
    previous = now;
  }
  return {
    perSecond: gaps.length / (ms / 1000),
    lostShare: gaps.reduce((sum, gap) => sum + gap, 0) / (ms * 1000),
    medianGapUs: median(gaps),
  };
}

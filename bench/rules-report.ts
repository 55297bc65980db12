// The BENCHMARKS.md section of bench/rules.ts: each rule's decision cost per
// model size, and whether it stays flat (p50 at the largest size over p50 at
// the smallest, measured in the same run). The sizes run in turn, round after
// round, and each keeps its least disturbed round: on a shared host the speed
// moves within seconds (one run of the sizes one after another measured every
// 100-node case 1.3-2.5x faster than the same code a minute later).

import { runChild } from './child.ts';
import type { Percentiles } from './stats.ts';

export interface RulesJob {
  readonly nodes: number;
  readonly decisions: number;
}

/** Rounds of every size in turn (100, 1,000, 10,000, 100, …). */
export const RULES_ROUNDS = 3;

/** bench/rules.ts in a fresh process per size and round; per size, each case's least disturbed round. */
export async function measureRules(
  sizes: readonly number[],
  decisions: number,
  rounds: number,
  log: (line: string) => void = () => {},
): Promise<RulesReport[]> {
  const runs: RulesReport[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const reports: RulesReport[] = [];
    for (const nodes of sizes) {
      log(`rules: ${nodes} nodes, round ${round} of ${rounds}`);
      reports.push(await runChild<RulesReport>('./rules.ts', { nodes, decisions }, [], 15 * 60_000));
    }
    runs.push(reports);
  }
  return leastDisturbed(runs);
}

/** Per size (the position in each round) and case, the round with the lowest p50, its p99 with it. */
export function leastDisturbed(rounds: readonly (readonly RulesReport[])[]): RulesReport[] {
  return rounds[0]!.map((first, size) => ({
    ...first,
    results: first.results.map(({ name }) => {
      const candidates = rounds.map((reports) => reports[size]!.results.find((result) => result.name === name)!);
      return candidates.reduce((best, next) => (next.us.p50 < best.us.p50 ? next : best));
    }),
  }));
}

export interface RulesReport {
  readonly nodes: number;
  /** Racks, the pack rule's domains. */
  readonly domains: number;
  readonly results: readonly { readonly name: string; readonly us: Percentiles }[];
}

export const RULES_HEADING = '## Rules from measured data and DRA: flat in the node count';

/** Flat: the largest model's p50 within this factor of the smallest's (the machine is shared; noise is ~±30 %). */
export const FLAT_RATIO = 1.5;
/** Cases whose output, not the node count, sets their cost (the gpu rule's hostname list). */
const GROWS_BY_DESIGN = /1 node in 13/;

export interface RulesVerdict {
  readonly name: string;
  readonly ratio: number;
  readonly flat: boolean;
  readonly byDesign: boolean;
}

export function rulesVerdicts(reports: readonly RulesReport[]): RulesVerdict[] {
  const small = reports[0];
  const large = reports.at(-1);
  if (!small || !large || small === large) return [];
  return large.results.map(({ name, us }) => {
    const ratio = us.p50 / small.results.find((result) => result.name === name)!.us.p50;
    return { name, ratio, flat: ratio <= FLAT_RATIO, byDesign: GROWS_BY_DESIGN.test(name) };
  });
}

const us = (value: number) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0));
const count = (value: number) => Math.round(value).toLocaleString('en-US');

export function renderRulesSection(reports: readonly RulesReport[]): string {
  const small = reports[0]!;
  const large = reports.at(-1)!;
  const verdicts = rulesVerdicts(reports);
  const header = ['rule, decision', ...reports.map((r) => `${count(r.nodes)} nodes p50 / p99 µs`)];
  const rows = small.results.map(({ name }) => [
    name,
    ...reports.map((report) => {
      const found = report.results.find((result) => result.name === name)!.us;
      return `${us(found.p50)} / ${us(found.p99)}`;
    }),
  ]);
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const verdictOf = (v: RulesVerdict) =>
    v.byDesign
      ? `grows with the slice-qualified nodes (${v.ratio.toFixed(2)}×): the patch names each by hostname`
      : v.flat
        ? `flat (${v.ratio.toFixed(2)}×)`
        : `**not flat: ${v.ratio.toFixed(2)}×**`;
  return [
    '`node --expose-gc bench/rules.ts` (a fresh process per size; racks of 40 nodes in a zone, 3 bound Pods per node,',
    `a ResourceSlice of 8 GPUs on one node in 13; method in docs/benchmarks.md). Each decision timed alone; each size`,
    `ran ${RULES_ROUNDS} times in turn with the others, and each case shows its round with the lowest p50. The`,
    `pack domains are ${reports.map((r) => `${count(r.domains)} racks at ${count(r.nodes)} nodes`).join(', ')}.`,
    '',
    line(header),
    line(header.map(() => '---')),
    ...rows.map(line),
    '',
    `Flatness: p50 at ${count(large.nodes)} nodes ÷ p50 at ${count(small.nodes)} nodes, same run; flat when ≤ ${FLAT_RATIO}.`,
    '',
    line(['rule, decision', 'verdict']),
    line(['---', '---']),
    ...verdicts.map((v) => line([v.name, verdictOf(v)])),
  ].join('\n');
}

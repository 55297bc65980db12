// BENCHMARKS.md's overload section (overload.ts): throughput at 256 connections
// over throughput at 16, for topogate and the no-op, with and without a
// CPU-bound neighbour per core, and what became of every request.

import { IN_FLIGHT_CAP, type OverloadReport } from './overload.ts';

/** Issue 42: at 256 connections at least this share of the throughput at 16, with and without neighbours. */
export const OVERLOAD_RATIO = 0.9;
export const OVERLOAD_HEADING = '## 14. Overload stays at capacity';

const count = (value: number) => Math.round(value).toLocaleString('en-US');

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export interface OverloadVerdict {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

/**
 * Throughput at 256 over at 16, each side's own: the geometric mean of each round's ratio. A round runs both loads
 * back to back and the rounds alternate which goes first, so a host that changes speed from minute to minute, or
 * a second run of a round slower than the first, weighs on both loads alike (an even number of rounds).
 */
export function overloadRatio(report: OverloadReport, neighbours: boolean, side: 'topogate' | 'noop'): number {
  const at = (connections: number) =>
    report.cells.find((cell) => cell.connections === connections && cell.neighbours === neighbours)![side];
  const [many, few] = [at(256), at(16)];
  const logs = many.map((run, round) => Math.log(run.answeredPerSecond / few[round]!.answeredPerSecond));
  return Math.exp(logs.reduce((sum, value) => sum + value, 0) / logs.length);
}

export function overloadVerdicts(report: OverloadReport): OverloadVerdict[] {
  const verdicts: OverloadVerdict[] = [false, true].map((neighbours) => {
    const topogate = overloadRatio(report, neighbours, 'topogate');
    return {
      target: `overload: throughput at 256 connections ≥ ${OVERLOAD_RATIO} × at 16${neighbours ? ', a CPU-bound neighbour on each core' : ''}`,
      measured: `${topogate.toFixed(2)} (the no-op: ${overloadRatio(report, neighbours, 'noop').toFixed(2)})`,
      met: topogate >= OVERLOAD_RATIO,
    };
  });
  const below = report.cells.filter((cell) => cell.connections <= IN_FLIGHT_CAP);
  const refusedBelow = below.reduce((sum, cell) => sum + cell.topogate.reduce((s, run) => s + run.refused, 0), 0);
  const errors = report.cells.reduce(
    (sum, cell) => sum + cell.topogate.reduce((s, run) => s + run.errors - run.refused, 0),
    0,
  );
  verdicts.push({
    target: `overload: every request answered (no 429 below the in-flight cap of ${IN_FLIGHT_CAP}, no error)`,
    measured: `${count(refusedBelow)} refused at ${below.map((cell) => cell.connections).join('/')} connections, ${count(errors)} socket errors or timeouts`,
    met: refusedBelow === 0 && errors === 0,
  });
  return verdicts;
}

export function renderOverloadSection(report: OverloadReport): string {
  const rows = report.cells.map((cell) => {
    const runs = (side: 'topogate' | 'noop') => cell[side].map((run) => count(run.answeredPerSecond)).join(', ');
    const refused = cell.topogate.reduce((sum, run) => sum + run.refused, 0);
    const errors = cell.topogate.reduce((sum, run) => sum + run.errors - run.refused, 0);
    const { patched, allowed, deferred, skipped, late, answers } = cell.outcomes;
    return [
      String(cell.connections),
      cell.neighbours ? `yes (${report.neighbours})` : 'no',
      runs('topogate'),
      runs('noop'),
      `${count(refused)} / ${count(errors)}`,
      `${count(patched)} placed, ${count(deferred)} deferred, ${count(skipped)} skipped, ${count(allowed)} allowed unchanged; ${count(late)} decided late (of ${count(answers)})`,
    ];
  });
  return [
    `\`wrk\` keep-alive at 16 and 256 connections, ${report.seconds} s a run, ${report.rounds} rounds, topogate and the no-op in`,
    `turns, \`serve\` with its default budget (${report.budgetMs} ms) and a file topology (so a late Pod is decided late,`,
    'not deferred: no controller). "Neighbours" is one `for(;;){}` process pinned to each core for the run. Throughput',
    'counts the 2xx answers each server counted itself, from a second after every connection is past its TLS handshake;',
    'a 429 is serve refusing a request past its in-flight cap, before reading it.',
    '',
    table(
      [
        'connections',
        'CPU-bound neighbours',
        'topogate answers/s (each round)',
        'no-op answers/s (each round)',
        'topogate refused (429) / errors',
        'what topogate did with the Pods (all rounds)',
      ],
      rows,
    ),
    '',
    table(
      ['', 'topogate 256 / 16 (geometric mean of the rounds)', 'no-op 256 / 16'],
      [false, true].map((neighbours) => [
        neighbours ? 'with neighbours' : 'alone',
        `**${overloadRatio(report, neighbours, 'topogate').toFixed(2)}**`,
        overloadRatio(report, neighbours, 'noop').toFixed(2),
      ]),
    ),
  ].join('\n');
}

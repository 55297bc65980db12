// BENCHMARKS.md's section on the model of the largest clusters (run.ts): its
// targets, one row per size, and what the watches cost the API server.

import type { LargeReport } from './run.ts';
import type { Traffic } from './replay.ts';

/** Issue 42's targets for a model of 65,000 nodes × 500 policies. */
export const LARGE_TARGETS = {
  firstSnapshotMs: 3_000,
  rssBytes: 700e6,
  updateMs: 5,
  decisionP99Us: 25,
  /** Flat from 100 nodes: the largest model's decision p50 within this factor of the smallest's. */
  flatRatio: 1.25,
} as const;

export interface LargeVerdict {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

export const LARGE_HEADING = '## 13. A model the size of the largest clusters';

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const us = (value: number) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0));
const count = (value: number) => Math.round(value).toLocaleString('en-US');

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function largeVerdicts(reports: readonly LargeReport[]): LargeVerdict[] {
  const largest = reports.at(-1);
  const smallest = reports[0];
  if (!largest || !smallest) return [];
  const at = `at ${count(largest.shape.nodes)} nodes × ${largest.shape.policies} policies (recorded list/watch stream)`;
  const { model, serve } = largest;
  const list: LargeVerdict[] = [
    {
      target: `first snapshot ≤ ${LARGE_TARGETS.firstSnapshotMs / 1000} s ${at}`,
      measured: `${ms(model.firstSnapshotMs)} ms to every node; ${ms(model.readyMs)} ms to every source listed (${count(largest.shape.pods)} Pods)`,
      met: model.firstSnapshotMs <= LARGE_TARGETS.firstSnapshotMs,
    },
    {
      target: `RSS of \`topogate serve\` ≤ ${mb(LARGE_TARGETS.rssBytes)} MB ${at}`,
      measured: serve
        ? `${mb(serve.rssBytes)} MB (peak ${mb(serve.peakRssBytes)} MB)`
        : `not measured: ${largest.serveError}`,
      met: serve !== undefined && serve.rssBytes <= LARGE_TARGETS.rssBytes,
    },
    {
      target: `one node's update reflected in decisions ≤ ${LARGE_TARGETS.updateMs} ms after the event (p50) ${at}`,
      measured: `p50 ${ms(model.updateMs.p50)} ms, p99 ${ms(model.updateMs.p99)} ms (${model.updatesSeen} events)`,
      met: model.updateMs.p50 <= LARGE_TARGETS.updateMs,
    },
    {
      target: `decision p99 ≤ ${LARGE_TARGETS.decisionP99Us} µs ${at}`,
      measured: `${us(model.decisionUs.p99)} µs (p50 ${us(model.decisionUs.p50)} µs; the machine's floor, fixed work as long: p99 ${us(model.floorUs.p99)} µs)`,
      met: model.decisionUs.p99 <= LARGE_TARGETS.decisionP99Us,
    },
  ];
  if (reports.length > 1)
    list.push({
      target: `flat: decision p50 at ${count(largest.shape.nodes)} nodes ≤ ${LARGE_TARGETS.flatRatio} × at ${count(smallest.shape.nodes)} (live model)`,
      measured: `${(model.decisionUs.p50 / smallest.model.decisionUs.p50).toFixed(2)}× (${us(model.decisionUs.p50)} / ${us(smallest.model.decisionUs.p50)} µs)`,
      met: model.decisionUs.p50 / smallest.model.decisionUs.p50 <= LARGE_TARGETS.flatRatio,
    });
  return list;
}

function sizesTable(reports: readonly LargeReport[]): string {
  return table(
    [
      'nodes',
      'Pods',
      'List bytes (MB)',
      'first snapshot ms',
      'all listed ms',
      'longest turn while listing ms',
      'compile ms',
      'decision p50 / p99 / max µs',
      "the machine's floor p50 / p99 µs",
      'update → decision p50 / p99 / max ms',
      'model process RSS / heap MB',
      '`serve`: ready ms, RSS / peak MB',
    ],
    reports.map(({ shape, stream, model, serve, serveError }) => [
      count(shape.nodes),
      count(shape.pods),
      mb(Object.values(stream).reduce((sum, { bytes }) => sum + bytes, 0)),
      ms(model.firstSnapshotMs),
      ms(model.readyMs),
      ms(model.longestTurnMs),
      ms(model.compileMs),
      `${us(model.decisionUs.p50)} / ${us(model.decisionUs.p99)} / ${us(model.decisionUs.max)}`,
      `${us(model.floorUs.p50)} / ${us(model.floorUs.p99)}`,
      `${ms(model.updateMs.p50)} / ${ms(model.updateMs.p99)} / ${ms(model.updateMs.max)}`,
      `${mb(model.rssBytes)} / ${mb(model.heapBytes)}`,
      serve
        ? `${ms(serve.readyMs)}, ${mb(serve.rssBytes)} / ${mb(serve.peakRssBytes)}`
        : serveError !== undefined
          ? `failed: ${serveError}`
          : '– (the largest size only)',
    ]),
  );
}

function trafficTable(list: Traffic, churn: Traffic | undefined, seconds: number): string {
  const names = Object.keys(list.resources);
  return table(
    ['resource', 'what topogate asks (lists; watch)', 'List: objects, MB', 'watch events/s, KB/s (churn window)'],
    names.map((name) => {
      const listed = list.resources[name]!;
      const during = churn?.resources[name];
      return [
        name,
        listed.queries.map((query) => `\`${query || '(nothing)'}\``).join('; '),
        `${count(listed.objects)}, ${mb(listed.listBytes)}`,
        during ? `${count(during.objects / seconds)}, ${count(during.eventBytes / 1000 / seconds)}` : '–',
      ];
    }),
  );
}

export function renderLargeSection(reports: readonly LargeReport[]): string {
  const largest = reports.at(-1);
  if (!largest) return '';
  const parts = [
    'A recorded list/watch stream (`bench/large/generate.ts`, made at run time and kept in `bench/out/large/`): Nodes',
    'with zone, rack, block and GPU labels, image lists and managedFields; 500 SchedulingPolicy objects; NodeResourceTopology',
    'for a tenth of the nodes; a ResourceSlice per GPU node; 7.7 Pods per node (500,000 at 65,000 nodes), as the API',
    "server sends them. A replay server on loopback (`bench/large/replay.ts`) speaks the API server's list (pages of",
    "500, as topogate asks) and watch, and `serve`'s own sources build the model: `createKubeTopology` and",
    '`createDecider` in a fresh process (`bench/large/model.ts`), then `topogate serve --topology kube` against the',
    'same replay for its RSS.',
    "The update is a canary: a watch event renames one GPU node's product, which a policy (`onUnsatisfiable: Reject`)",
    'needs; timed from the replay writing the event to the first decision that shows it (on the clock both processes',
    'share). Decisions are timed alone, every Pod new to the memo, on the live model. The longest turn while listing is',
    'the longest the event loop went without turning (a timer every 5 ms) until every source was listed: what an',
    'admission request arriving then could wait behind the lists.',
    '',
    sizesTable(reports),
  ];
  if (largest.churnTraffic && largest.churnRates && largest.model.churnSeconds) {
    const seconds = largest.model.churnSeconds;
    const rates = Object.entries(largest.churnRates)
      .map(([name, rate]) => `${name} ${count(rate)}/s`)
      .join(', ');
    parts.push(
      '',
      `### What topogate's watches cost the API server, at ${count(largest.shape.nodes)} nodes`,
      `Measured at the replay server: the lists of one start, and the watch events sent over a ${seconds} s window of`,
      `churn (${rates}: docs/benchmarks.md says where the rates come from). topogate's model process used`,
      `**${((largest.model.churnCpuShare ?? 0) * 100).toFixed(0)} %** of a core to take them in.`,
      '',
      trafficTable(largest.listTraffic, largest.churnTraffic, seconds),
    );
    const other = Object.entries(largest.listTraffic.other);
    if (other.length > 0)
      parts.push('', `Requests for other paths: ${other.map(([path, n]) => `\`${path}\` ×${n}`).join(', ')}.`);
  }
  return parts.join('\n');
}

// BENCHMARKS.md from one run's results: the machine, every table, the
// targets met or missed (and by how much), and the profiles of what is in the
// way of a missed one.

import { apiServerVerdict, renderApiServerSection, type ApiServerReport } from './apiserver-report.ts';
import type { DecisionReport } from './decisions.ts';
import { LARGE_HEADING, largeVerdicts, renderLargeSection } from './large/report.ts';
import type { LargeReport } from './large/run.ts';
import { OVERLOAD_HEADING, overloadVerdicts, renderOverloadSection } from './overload-report.ts';
import type { OverloadReport } from './overload.ts';
import { LATENCY_HISTOGRAM, OVERLOAD_CONNECTIONS, type HttpReport, type MergedLatency, type SafePath } from './http.ts';
import type { Machine } from './machine.ts';
import type { Hotspot } from './profile.ts';
import { stacked } from './plot.ts';
import { renderRulesSection, RULES_HEADING, rulesVerdicts, FLAT_RATIO, type RulesReport } from './rules-report.ts';
import type { ServeMemory } from './serve-memory.ts';
import type { Tools } from './tools.ts';
import type { UpdateReport } from './updates.ts';
import type { WorkersReport } from './workers.ts';

export interface Profile {
  readonly what: string;
  readonly hotspots: readonly Hotspot[];
  readonly note?: string;
}

export interface Failure {
  readonly section: string;
  readonly message: string;
}

export interface BenchResults {
  readonly machine: Machine;
  readonly quick: boolean;
  readonly tools: Tools | undefined;
  readonly decisions: readonly DecisionReport[] | undefined;
  readonly serveMemory: readonly ServeMemory[] | undefined;
  readonly rules?: readonly RulesReport[] | undefined;
  readonly updates: UpdateReport | undefined;
  readonly http: HttpReport | undefined;
  readonly workers?: WorkersReport | undefined;
  /** The model of the largest clusters, per size (bench/large/). */
  readonly large?: readonly LargeReport[] | undefined;
  /** 256 against 16 connections, with and without CPU-bound neighbours (bench/overload.ts). */
  readonly overload?: OverloadReport | undefined;
  /** The e2e control plane's own histogram of the webhook's calls (bench/apiserver.ts). */
  readonly apiserver?: ApiServerReport | undefined;
  readonly profiles: readonly Profile[];
  readonly failures: readonly Failure[];
  readonly seconds: number;
}

/** Issue 20's and issue 42's targets: throughput and latency as ratios to the no-op measured in the same run. */
export const TARGETS = {
  replicaRatio: 1.0,
  newPodRatio: 0.95,
  p99AtHalfVsNoop: 1.2,
  decisionP99Us: 25,
  /** "Flat from 100 nodes": the largest model's decision p50 within this factor of the 100-node one. */
  flatRatio: 1.25,
  rssBytes: 150e6,
  /** A second worker process is kept only if it gives at least this much more throughput. */
  workerGain: 1.1,
} as const;
/** The Linux tick at CONFIG_HZ=250: the longest a runnable thread waits past its EEVDF slice (1.5 ms on 2 CPUs). */
export const SCHEDULING_QUANTUM_MS = 4;

const COLORS = ['#1f77b4', '#d62728', '#2ca02c'];

const us = (value: number) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0));
const ms = (value: number) => (value < 1 ? value.toFixed(3) : value < 10 ? value.toFixed(2) : value.toFixed(1));
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const percent = (part: number, whole: number) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(2)} %`);
const safe = (path: SafePath) =>
  `${count(path.skipped)} of ${count(path.answers)} (${percent(path.skipped, path.answers)}); late: ${count(path.late)}`;

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function renderChart(decisions: readonly DecisionReport[]): string {
  const policyCounts = decisions[0]?.results.map((r) => r.policies) ?? [];
  const chart = (pick: 'p50' | 'p99') => ({
    title: `Decision latency ${pick} by model size (flat is the goal)`,
    xLabel: 'nodes in the topology model (log scale)',
    yLabel: `µs per decision, ${pick}`,
    xs: decisions.map((d) => d.nodes),
    series: policyCounts.map((policies, index) => ({
      name: `${policies} ${policies === 1 ? 'policy' : 'policies'}`,
      values: decisions.map((d) => d.results.find((r) => r.policies === policies)?.latencyUs[pick] ?? Number.NaN),
      color: COLORS[index % COLORS.length]!,
      dashed: pick === 'p99',
    })),
  });
  return stacked([chart('p50'), chart('p99')]);
}

interface Verdict {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
  readonly by: string;
}

function verdict(
  target: string,
  measured: number,
  limit: number,
  format: (v: number) => string,
  atMost: boolean,
): Verdict {
  const met = atMost ? measured <= limit : measured >= limit;
  const off = atMost ? measured / limit : limit / measured;
  return {
    target,
    measured: format(measured),
    met,
    by: met ? 'met' : `missed: ${offBy(off, atMost ? 'over' : 'under')}`,
  };
}

/** How far a missed target is off: in per cent below 1.5×, where "1.0×" would hide a miss of a few per cent. */
export function offBy(off: number, direction: 'over' | 'under'): string {
  return off < 1.5 ? `${Math.ceil((off - 1) * 100)} % ${direction}` : `${off.toFixed(1)}× ${direction}`;
}

/** Beyond this share of safe-path answers, topogate's figures measure its shortcut, not its decisions. */
const SAFE_PATH_TOLERANCE = 0.01;

function verdicts(results: BenchResults): Verdict[] {
  const list: Verdict[] = [];
  const http = results.http;
  if (http) {
    list.push(
      honest(
        verdict(
          `replicas (the same Pod again): throughput topogate / no-op ≥ ${TARGETS.replicaRatio} (keep-alive)`,
          http.keepAlive.ratio,
          TARGETS.replicaRatio,
          (v) => `${v.toFixed(2)} (CPU per request: ${http.keepAlive.cpuRatio.toFixed(2)})`,
          false,
        ),
        http.keepAlive.topogateSafePath,
      ),
      honest(
        verdict(
          `every Pod new: throughput topogate / no-op ≥ ${TARGETS.newPodRatio} (keep-alive)`,
          http.uniquePods.ratio,
          TARGETS.newPodRatio,
          (v) => `${v.toFixed(2)} (CPU per request: ${http.uniquePods.cpuRatio.toFixed(2)})`,
          false,
        ),
        http.uniquePods.topogateSafePath,
      ),
    );
    const half = http.latency.find((point) => point.fraction === 0.5);
    if (half)
      list.push(
        honest(
          verdict(
            `p99 at 50 % of the no-op's capacity ≤ ${TARGETS.p99AtHalfVsNoop} × the no-op's own p99`,
            half.topogate.p99 / half.noop.p99,
            TARGETS.p99AtHalfVsNoop,
            (v) => `${v.toFixed(2)}× (${ms(half.topogate.p99)} / ${ms(half.noop.p99)} ms)`,
            true,
          ),
          half.topogateSafePath,
        ),
      );
    const slowest = http.budget.serverSlowest;
    const limit = http.budgetMs + SCHEDULING_QUANTUM_MS;
    if (slowest) {
      const upper = slowest.upper * 1000;
      const met = upper <= limit;
      list.push({
        target: `under 2× load, no answer later than the budget plus one quantum (${limit} ms, server clock)`,
        measured: `slowest in (${ms(slowest.lower * 1000)}, ${ms(upper)}] ms (the no-op's slowest, client side: ${ms(http.budget.noop.max)} ms)`,
        met,
        by: met
          ? 'met'
          : slowest.lower * 1000 >= limit
            ? `missed: ≥ ${((slowest.lower * 1000) / limit).toFixed(1)}× over`
            : 'unknown: the histogram bucket straddles the limit',
      });
    }
  }
  const largest = results.decisions?.at(-1);
  if (largest) {
    const most = largest.results.at(-1);
    if (most) {
      list.push(
        verdict(
          `decision p99 ≤ ${TARGETS.decisionP99Us} µs for new Pods at ${count(largest.nodes)} nodes and ${most.policies} policies`,
          most.latencyUs.p99,
          TARGETS.decisionP99Us,
          (v) =>
            most.floorUs
              ? `${us(v)} µs (the machine's floor, fixed work as long: ${us(most.floorUs.p99)} µs)`
              : `${us(v)} µs`,
          true,
        ),
      );
      const smallest = results.decisions?.[0]?.results.find((r) => r.policies === most.policies);
      if (smallest && results.decisions!.length > 1)
        list.push(
          verdict(
            `flat: decision p50 at ${count(largest.nodes)} nodes ≤ ${TARGETS.flatRatio} × at ${count(results.decisions![0]!.nodes)} nodes (${most.policies} policies)`,
            most.latencyUs.p50 / smallest.latencyUs.p50,
            TARGETS.flatRatio,
            (v) => `${v.toFixed(2)}× (${us(most.latencyUs.p50)} / ${us(smallest.latencyUs.p50)} µs)`,
            true,
          ),
        );
    }
  }
  if (results.workers)
    list.push(
      verdict(
        `two serve processes behind one listener pay: throughput ≥ ${TARGETS.workerGain} × one process (every Pod new)`,
        results.workers.gain,
        TARGETS.workerGain,
        (v) => `${v.toFixed(2)}×`,
        false,
      ),
    );
  const rules = results.rules;
  const [smallest, largestRules] = [rules?.[0], rules?.at(-1)];
  if (rules && smallest && largestRules)
    for (const flatness of rulesVerdicts(rules).filter((v) => !v.byDesign))
      list.push(
        verdict(
          `${flatness.name}: p50 at ${count(largestRules.nodes)} nodes ≤ ${FLAT_RATIO} × at ${count(smallest.nodes)}`,
          flatness.ratio,
          FLAT_RATIO,
          (value) => `${value.toFixed(2)}×`,
          true,
        ),
      );
  const largestServe = results.serveMemory?.at(-1);
  if (largestServe)
    list.push(
      verdict(
        `RSS of \`topogate serve\` ≤ ${mb(TARGETS.rssBytes)} MB at ${count(largestServe.nodes)} nodes`,
        largestServe.rssBytes,
        TARGETS.rssBytes,
        (v) => `${mb(v)} MB`,
        true,
      ),
    );
  if (results.overload)
    for (const overload of overloadVerdicts(results.overload))
      list.push({ ...overload, by: overload.met ? 'met' : 'missed' });
  for (const large of largeVerdicts(results.large ?? [])) list.push({ ...large, by: large.met ? 'met' : 'missed' });
  const apiserver = results.apiserver && apiServerVerdict(results.apiserver);
  if (apiserver) list.push({ ...apiserver, by: apiserver.met ? 'met' : 'missed' });
  return list;
}

/** A figure measured while many answers took the safe path is not a measurement of topogate's decisions: say so. */
function honest(result: Verdict, path: SafePath): Verdict {
  if (path.answers === 0 || path.skipped / path.answers <= SAFE_PATH_TOLERANCE) return result;
  return {
    ...result,
    met: false,
    by: `void: ${percent(path.skipped, path.answers)} of topogate's answers took the budget's safe path (admitted unchanged, not decided)`,
  };
}

function machineSection(results: BenchResults): string {
  const m = results.machine;
  const tools = results.tools;
  return [
    table(
      ['', ''],
      [
        ['CPU', `${m.cpuModel}, ${m.cores} cores`],
        ['memory', `${m.memoryGiB} GiB`],
        ['kernel', m.kernel],
        ['Node', m.node],
        ['date', m.date],
        ['load average at start (1, 5, 15 min)', m.loadAverage.join(', ')],
        [
          'a busy thread loses (1 s spinning on the clock at start)',
          `${count(m.interruptions.perSecond)} gaps over 5 µs a second, median ${us(m.interruptions.medianGapUs)} µs: ${(100 * m.interruptions.lostShare).toFixed(1)} % of the time (\`bench/floor.ts\`)`,
        ],
        ...(tools
          ? [
              [
                'load tools',
                `${tools.wrk}, ${tools.h2load} (Debian packages \`wrk\`, \`nghttp2-client\`; ${tools.installed.length > 0 ? `installed by this run: \`apt-get install -y ${tools.installed.join(' ')}\`` : 'already installed; the setup step runs `apt-get install -y wrk nghttp2-client` when they are missing'})`,
              ],
            ]
          : []),
        ['run', `${results.quick ? '`--quick` (tiny sizes: not for conclusions)' : 'full'}, ${results.seconds} s`],
      ],
    ),
    '',
    'The machine is shared: other processes (builds, other test suites) may run at the same time. The HTTP',
    'runs alternate topogate and the no-op (A B A B) so that drift hits both alike, and every in-process',
    'figure is set against a baseline measured in the same process and minute.',
  ].join('\n');
}

function httpSection(http: HttpReport): string {
  const capacityRows = (name: string, run: HttpReport['keepAlive']) => [
    name,
    run.topogate.map((c) => count(c.requestsPerSecond)).join(', '),
    run.noop.map((c) => count(c.requestsPerSecond)).join(', '),
    `**${run.ratio.toFixed(2)}**`,
    `${run.topogate.map((c) => `${ms(c.p50Ms)} / ${ms(c.p99Ms)}`).join(', ')} · ${run.noop.map((c) => `${ms(c.p50Ms)} / ${ms(c.p99Ms)}`).join(', ')}`,
    `${run.topogate.map((c) => count(c.cpuMicrosPerRequest)).join(', ')} · ${run.noop.map((c) => count(c.cpuMicrosPerRequest)).join(', ')} (**${run.cpuRatio.toFixed(2)}**)`,
    [...run.topogate, ...run.noop].reduce((sum, c) => sum + c.errors, 0).toString(),
    safe(run.topogateSafePath),
  ];
  return [
    `topogate (\`serve\`, ${count(http.nodes)}-node model from files, ${http.policies} policies, \`--budget-ms ${http.decidingBudgetMs}\` so that every request is decided on this shared machine; section 5 runs the default ${http.budgetMs} ms) against the`,
    'no-op webhook (`bench/noop-webhook.ts`: `node:https`, parse, echo the uid, allow), each one Node process on',
    `127.0.0.1 with the same certificate (made by \`topogate certs\`) and the same ${count(http.bodyBytes)}-byte AdmissionReview of a`,
    `Pod CREATE, which topogate answers with a ${http.patchOps}-operation JSON Patch (checked before the runs; the freshly`,
    `started server answered ${http.coldSkips} request${http.coldSkips === 1 ? '' : 's'} on the budget's safe path before its first patch).`,
    `Each measurement runs ${http.seconds} s, ${http.rounds}× per side, alternating A B A B, after a second of the same load on each`,
    `side that is left out.${cores(http)}`,
    '',
    `### Capacity (\`wrk -t1 -c25\`, POST from \`bench/post.lua\`)`,
    table(
      [
        'connections',
        'topogate req/s (each run)',
        'no-op req/s (each run)',
        'ratio (medians)',
        'p50 / p99 ms at saturation, topogate · no-op',
        'server CPU µs per request, topogate · no-op (no-op / topogate)',
        'errors',
        "topogate answers on the budget's safe path; decided late",
      ],
      [
        capacityRows('HTTP/1.1 keep-alive, 25 connections (as the API server)', http.keepAlive),
        capacityRows('the same, every Pod new (an annotation numbered per request)', http.uniquePods),
        capacityRows(
          "the same, a new workload's Pods (a label no policy reads numbered per request)",
          http.newWorkloads,
        ),
        capacityRows('a new TLS connection per request', http.newConnection),
      ],
    ),
    '',
    'The same Pod sent again and again, each time with its own request uid and token volume name, is what the API',
    "server sends while a workload scales: topogate parses that body's shape once (the review memo) and decides it",
    'once (the decision memo, docs/engine.md, Cost).',
    'The second row is the other extreme, every Pod new (an annotation numbered per request), each parsed and decided in',
    'full. The third is the first Pod of a new workload of a known shape: its new label is one no policy reads, which a',
    'decision does not see, so it takes the decision kept for its kind and only its body is parsed anew.',
    '',
    '### Latency at fixed rates (`h2load --h1`, 25 connections, 1 s warm-up excluded)',
    "Rates are fractions of the no-op's keep-alive capacity above; percentiles over every request of all rounds, and each round's p99 beside them.",
    '',
    table(
      [
        'load',
        'rate (req/s)',
        'topogate p50 / p99 / max (ms)',
        'no-op p50 / p99 / max (ms)',
        'p99 of each round (ms), topogate · no-op',
        'achieved rate topogate / no-op',
        'failed',
        'safe path',
      ],
      http.latency.map((point) => [
        `${point.fraction * 100} %`,
        count(point.rate),
        `${ms(point.topogate.p50)} / **${ms(point.topogate.p99)}** / ${ms(point.topogate.max)}`,
        `${ms(point.noop.p50)} / ${ms(point.noop.p99)} / ${ms(point.noop.max)}`,
        `${roundP99s(point.topogate)} · ${roundP99s(point.noop)}`,
        `${count(point.topogate.achievedRate)} / ${count(point.noop.achievedRate)}`,
        `${point.topogate.failed} / ${point.noop.failed}`,
        safe(point.topogateSafePath),
      ]),
    ),
  ].join('\n');
}

/** A results.json written before the rounds' figures were kept has none. */
function roundP99s(latency: MergedLatency): string {
  return latency.roundP99s?.map(ms).join(', ') ?? '–';
}

function cores(http: HttpReport): string {
  if (http.cores === undefined) return '';
  return ` Each server's main thread runs on CPU ${http.cores.server}, wrk and h2load on CPU ${http.cores.load} (\`taskset\`), as the API server and a webhook run apart in a cluster (\`bench/cores.ts\`).`;
}

function budgetSection(http: HttpReport): string {
  const run = http.budget;
  const limit = http.budgetMs + SCHEDULING_QUANTUM_MS;
  const slowest = run.serverSlowest;
  let serverLine = "The server's latency histogram recorded nothing over the run.";
  if (slowest) {
    const [lower, upper] = [slowest.lower * 1000, slowest.upper * 1000];
    const verdict =
      upper <= limit
        ? `**within** the budget plus one quantum (${limit} ms)`
        : lower >= limit
          ? `**not within** the budget plus one quantum (${limit} ms)`
          : `which the histogram's buckets cannot place against the budget plus one quantum (${limit} ms)`;
    serverLine = `By the server's own clock (\`${LATENCY_HISTOGRAM}\`, from arrival to answer) the slowest answer took between ${ms(lower)} and ${ms(upper)} ms, ${verdict}.`;
  }
  return [
    `topogate under 2× the no-op's keep-alive capacity (${count(run.rate)} req/s offered by \`h2load --h1\` on ${OVERLOAD_CONNECTIONS} connections, each`,
    `with one request in flight, ${http.seconds} s), \`--budget-ms ${http.budgetMs}\`.`,
    '',
    table(
      [
        'webhook',
        'offered / achieved req/s',
        'p50 / p99 / max (ms, client side)',
        'failed',
        'answers on the safe path; decided late (`topogate_budget_exceeded_total`)',
      ],
      [
        [
          'topogate',
          `${count(run.rate)} / ${count(run.latency.achievedRate)}`,
          `${ms(run.latency.p50)} / **${ms(run.latency.p99)}** / ${ms(run.latency.max)}`,
          String(run.latency.failed),
          safe(run.safePath),
        ],
        [
          'no-op (right after)',
          `${count(run.rate)} / ${count(run.noop.achievedRate)}`,
          `${ms(run.noop.p50)} / ${ms(run.noop.p99)} / ${ms(run.noop.max)}`,
          String(run.noop.failed),
          '–',
        ],
      ],
    ),
    '',
    serverLine,
    `A scheduling quantum is taken as ${SCHEDULING_QUANTUM_MS} ms (one tick at CONFIG_HZ=250, which bounds how far past its 1.5 ms EEVDF slice a runnable thread waits).`,
    "Client-side times also hold the wait in the kernel's socket queues before the server reads a request: when",
    `the server is saturated that wait is about ${OVERLOAD_CONNECTIONS} answers long, for the no-op as for topogate (Little's law:`,
    `${OVERLOAD_CONNECTIONS} requests in flight ÷ the rate achieved). The server's clock starts a request that much early (the event`,
    "loop's lag stands in for the wait it cannot see, so that the budget sheds by queue age), which no webhook",
    'answering every request can keep under the limit at this load: see docs/benchmarks.md, "Ninth look".',
  ].join('\n');
}

function decisionSection(decisions: readonly DecisionReport[], chartPath: string): string {
  const baseline = decisions[0]!;
  const rows = decisions.flatMap((report) =>
    report.results.map((result) => {
      const base = baseline.results.find((r) => r.policies === result.policies)!;
      return [
        count(report.nodes),
        String(result.policies),
        count(result.decisionsPerSecond),
        us(result.latencyUs.p50),
        us(result.latencyUs.p99),
        us(result.latencyUs.max),
        `${(result.latencyUs.p50 / base.latencyUs.p50).toFixed(2)} / ${(result.latencyUs.p99 / base.latencyUs.p99).toFixed(2)}`,
        result.cloneUs ? `${us(result.cloneUs.p50)} / ${us(result.cloneUs.p99)}` : '–',
        result.cloneUs ? (result.latencyUs.p50 / result.cloneUs.p50).toFixed(2) : '–',
        result.floorUs ? `${us(result.floorUs.p50)} / ${us(result.floorUs.p99)}` : '–',
        result.floorUs ? (result.latencyUs.p99 / result.floorUs.p99).toFixed(2) : '–',
        `${us(result.replicaUs.p50)} / ${us(result.replicaUs.p99)}`,
        ms(result.compileMs),
        `${result.contention.waitedShare === undefined ? '–' : `${(100 * result.contention.waitedShare).toFixed(0)} %`}; ${result.contention.gcPauses} / ${ms(result.contention.gcMs)} ms`,
      ];
    }),
  );
  const sample = decisions.at(-1)!.results.at(-1)!;
  return [
    'In process, pure: `compile(policies, snapshot)` once per policy set, then `decide(request, compiled, options)`',
    'round-robin over four Pods (a ~10 KB Guaranteed GPU trainer in `ml-training`, a Burstable web Pod with its own',
    'node affinity, a Guaranteed payments Pod, a BestEffort batch Pod). Synthetic clusters (`bench/cluster.ts`): six',
    'zones in two regions with a measured NetworkTopology, one node in seven with GPUs and GPU Feature Discovery',
    'labels, Node Feature Discovery labels, a NodeResourceTopology per node, taints, a few cordoned and NotReady',
    'nodes, 2,000 endpoints, an etcd cluster. Policies (`bench/workload.ts`): the first eight cover every rule kind',
    'for these Pods; the rest belong to other teams and do not match them, as in a shared cluster.',
    '',
    `Each model runs in a fresh process. Percentiles time each decision alone (\`process.hrtime.bigint()\`, after a`,
    'warm-up); decisions/s times batches of 1,000. Baselines in the same run: the same percentiles at the smallest',
    'model (ratio p50 / p99), and a `structuredClone` of the same Pods timed the same way. The last column says what',
    'else held the CPU while the percentiles were measured: the share of the time the process was runnable but waiting',
    'for a CPU (`/proc/self/schedstat`: other processes on the shared machine), and the GC pauses. A p99 of work this',
    "short is mostly those, and the machine's floor: fixed arithmetic (`bench/floor.ts`) calibrated to each Pod's",
    'median decision and timed between the decisions, so its p99 is what work of these lengths with no variation of',
    'its own gets from this machine (what a busy thread loses here: the Machine table above).',
    '',
    'Every timed decision is a Pod the compiled set has not decided before (a label no policy reads is new each time),',
    'so the engine runs in full; only node sets shared by Pods of one placement shape come from the memo. The',
    '"replica" column is the other case, a Pod decided before but for its name and uid (the next replica of a',
    'workload): the whole-decision memo answers it (docs/engine.md, Cost).',
    '',
    table(
      [
        'nodes',
        'policies',
        'decisions/s',
        'p50 µs',
        'p99 µs',
        'max µs',
        `vs ${count(baseline.nodes)} nodes (p50 / p99)`,
        'structuredClone p50 / p99 µs',
        'decision / clone (p50)',
        "machine's floor p50 / p99 µs",
        'decision / floor (p99)',
        'replica p50 / p99 µs',
        'compile ms',
        'waited for a CPU; GC pauses / ms',
      ],
      rows,
    ),
    '',
    `![Decision latency by model size](${chartPath})`,
    '',
    `What the Pods got at ${count(decisions.at(-1)!.nodes)} nodes and ${sample.policies} policies (the decisions timed above):`,
    '',
    table(
      ['namespace', 'allowed', 'policies applied', 'patch operations', 'warnings'],
      sample.outcomes.map((o) => [
        o.namespace,
        String(o.allowed),
        o.applied.join(', ') || '–',
        String(o.patchOps),
        String(o.warnings),
      ]),
    ),
  ].join('\n');
}

function serveMemoryTable(serve: readonly ServeMemory[]): string {
  const first = serve[0]!;
  return [
    `RSS of \`topogate serve\`, its own process (\`--topology FILE\`, ${first.policies} policies, with MALLOC_ARENA_MAX=2 as the manifests run it), after ${count(first.requests)} \`/mutate\` requests one`,
    'after another and 2 s of rest, from `/proc/PID/status`: VmRSS, and VmHWM for the peak (start-up included). Heap used is from its `/metrics`.',
    '',
    table(
      ['nodes', 'topology file (MB)', 'RSS (MB)', 'peak RSS (MB)', 'heap used (MB)'],
      serve.map((report) => [
        count(report.nodes),
        mb(report.topologyFileBytes),
        `**${mb(report.rssBytes)}**`,
        mb(report.peakRssBytes),
        mb(report.heapUsedBytes),
      ]),
    ),
  ].join('\n');
}

function benchProcessMemory(decisions: readonly DecisionReport[]): string {
  const heap = decisions.find((report) => report.heap)?.heap;
  const largest = decisions.find((report) => report.heap);
  return [
    'RSS of the benchmark process (the decision core in process, not the webhook): a fresh process per model size, after',
    'building the snapshot and compiling the 1-, 10- and 100-policy sets, after a full GC (`--expose-gc`). "Before" is the same',
    'process with the modules loaded and nothing built.',
    '',
    table(
      ['nodes', 'RSS before (MB)', 'RSS with the model (MB)', 'model heap used (MB)', 'snapshot build ms'],
      decisions.map((report) => [
        count(report.nodes),
        mb(report.rssBaseBytes),
        `**${mb(report.rssModelBytes)}**`,
        mb(report.heapModelBytes),
        ms(report.buildMs),
      ]),
    ),
    '',
    heap && largest
      ? `Heap over ${count(heap.decisions)} decisions (${count(largest.nodes)} nodes, ${largest.results.at(-1)!.policies} policies, ${heap.seconds.toFixed(1)} s), GC before and after: ${count(heap.beforeBytes)} → ${count(heap.afterBytes)} bytes, **growth ${count(heap.afterBytes - heap.beforeBytes)} bytes** (${(
          (heap.afterBytes - heap.beforeBytes) /
          heap.decisions
        ).toFixed(3)} bytes per decision); ${count(heap.majorGcs)} full collections on the way.`
      : 'Heap growth was not measured in this run.',
  ].join('\n');
}

function memorySection(
  serve: readonly ServeMemory[] | undefined,
  decisions: readonly DecisionReport[] | undefined,
): string {
  const parts = [
    serve && serve.length > 0 ? serveMemoryTable(serve) : undefined,
    decisions ? benchProcessMemory(decisions) : undefined,
  ];
  return parts.filter((part) => part !== undefined).join('\n\n');
}

function updatesSection(updates: UpdateReport): string {
  return [
    `The incremental builder (\`TopologyBuilder\`) given the initial lists of ${count(updates.nodes)} Nodes, ${count(updates.nrt)} NodeResourceTopology objects and`,
    `${count(updates.endpoints)} endpoints (${count(updates.endpoints / 100)} EndpointSlices), ${count(updates.objects)} objects in all, then watch events one by one, each`,
    'followed by `publish()`: the time from an event to the snapshot that includes it (for a bind, to the',
    'occupancy that includes it: `occupancy()`, which binds change instead of the snapshot).',
    '',
    table(
      ['first snapshot', 'model heap', 'RSS before → after'],
      [
        [
          `${ms(updates.firstSnapshotMs)} ms`,
          `${mb(updates.heapModelBytes)} MB`,
          `${mb(updates.rssBeforeBytes)} → ${mb(updates.rssAfterBytes)} MB (the source objects stay in memory)`,
        ],
      ],
    ),
    '',
    table(
      [
        'event',
        'events',
        'apply p50 / p99 µs',
        'event → snapshot p50 / p99 / max µs',
        'events/s (a snapshot after each)',
      ],
      updates.kinds.map((kind) => [
        kind.kind,
        count(kind.events),
        `${us(kind.applyUs.p50)} / ${us(kind.applyUs.p99)}`,
        `${us(kind.toSnapshotUs.p50)} / **${us(kind.toSnapshotUs.p99)}** / ${us(kind.toSnapshotUs.max)}`,
        count(kind.eventsPerSecond),
      ]),
    ),
  ].join('\n');
}

function profileSection(profiles: readonly Profile[]): string {
  return profiles
    .map((profile) =>
      [
        `### ${profile.what}`,
        profile.note ?? '',
        table(
          ['self %', 'self ms', 'function', 'where'],
          profile.hotspots.map((h) => [h.percent.toFixed(1), ms(h.selfMs), `\`${h.name}\``, `\`${h.where}\``]),
        ),
      ].join('\n'),
    )
    .join('\n\n');
}

function workersSection(workers: WorkersReport): string {
  const runs = (list: WorkersReport['one']) =>
    list.map((run) => `${count(run.requestsPerSecond)} (${count(run.cpuMicrosPerRequest)} µs)`).join(', ');
  return [
    '`topogate serve` as one process, and as two worker processes behind one listener (`node:cluster`,',
    '`bench/serve-workers.ts`: the primary accepts and hands connections round-robin), each against the no-op,',
    `\`wrk -t1 -c25\` keep-alive with every Pod new, ${workers.seconds} s per run, ${workers.rounds} rounds rotating the three. In`,
    "brackets: the server's CPU per request, all its processes.",
    '',
    table(
      ['server', 'req/s (CPU µs per request), each run', 'RSS per process (MB)'],
      [
        ['one process', runs(workers.one), workers.rssMb.one.toFixed(0)],
        ['two workers', runs(workers.two), workers.rssMb.two.map((rss) => rss.toFixed(0)).join(', ')],
        ['no-op', runs(workers.noop), '–'],
      ],
    ),
    '',
    `Two workers over one: **${workers.gain.toFixed(2)}×** the requests per second (a flag would be worth having only at ≥ ${TARGETS.workerGain}×; serve stays one process per replica, docs/benchmarks.md says why). The load`,
    'tool itself holds most of a core of this 2-core machine, and each worker holds the whole model, so the second',
    'process costs its full RSS again.',
  ].join('\n');
}

export function renderReport(
  results: BenchResults,
  chartPath = 'bench/results/decision-latency.svg',
): { markdown: string; missed: { decisions: boolean; http: boolean } } {
  const list = verdicts(results);
  const missed = {
    decisions: list.some((v) => !v.met && (v.target.startsWith('decision') || v.target.startsWith('flat'))),
    http: list.some(
      (v) =>
        !v.met &&
        (v.target.startsWith('replicas') ||
          v.target.startsWith('every Pod new') ||
          v.target.startsWith('p99') ||
          v.target.startsWith('under 2×')),
    ),
  };
  const parts = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` (\`bench/run.ts\`); raw figures in \`bench/results/results.json\`. Method and how to read`,
    'each table: [docs/benchmarks.md](docs/benchmarks.md).',
    '',
    '## Machine',
    machineSection(results),
    '',
    '## Targets',
    table(
      ['target', 'measured', 'verdict'],
      list.map((v) => [v.target, v.measured, v.met ? 'met' : `**${v.by}**`]),
    ),
  ];
  if (results.failures.length > 0) {
    parts.push(
      '',
      '## Sections that failed',
      ...results.failures.map((f) => `- **${f.section}**: ${'`'}${f.message.split('\n')[0]!.slice(0, 600)}${'`'}`),
    );
  }
  if (results.http) parts.push('', '## 1. HTTP, side by side with a no-op webhook', httpSection(results.http));
  if (results.decisions)
    parts.push('', '## 2. The decision core, in process', decisionSection(results.decisions, chartPath));
  if (results.decisions || results.serveMemory)
    parts.push('', '## 3. Memory', memorySection(results.serveMemory, results.decisions));
  if (results.updates) parts.push('', '## 4. Topology updates', updatesSection(results.updates));
  if (results.http) parts.push('', '## 5. The latency budget under overload', budgetSection(results.http));
  if (results.workers) parts.push('', '## 6. One process or two', workersSection(results.workers));
  if (results.rules?.length) parts.push('', RULES_HEADING, renderRulesSection(results.rules));
  if (results.large?.length) parts.push('', LARGE_HEADING, renderLargeSection(results.large));
  if (results.overload) parts.push('', OVERLOAD_HEADING, renderOverloadSection(results.overload));
  if (results.apiserver) parts.push('', renderApiServerSection(results.apiserver));
  if (results.profiles.length > 0) {
    parts.push(
      '',
      '## What is in the way (CPU profiles of the missed targets)',
      '`node --cpu-prof`, top self time (`bench/profile.ts`):',
      '',
      profileSection(results.profiles),
    );
  }
  return { markdown: `${parts.join('\n')}\n`, missed };
}

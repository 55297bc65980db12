// `npm run bench`: every benchmark in one bounded run, then BENCHMARKS.md
// and its plot. `--quick` runs tiny versions of each (for development on a
// shared machine) and writes to bench/out/ instead.
//   node bench/run.ts [--quick] [--only core,rules,updates,http,large,apiserver]
// The apiserver section starts the e2e control plane: hold the cluster lock.

import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runChild } from './child.ts';
import type { DecisionJob, DecisionReport } from './decisions.ts';
import { benchHttp, prepareHttp, startTopogate, type HttpSetup } from './http.ts';
import { wrk } from './load.ts';
import { describeMachine } from './machine.ts';
import { hotspots, mainThreadProfile } from './profile.ts';
import { renderChart, renderReport, type BenchResults, type Failure, type Profile } from './report.ts';
import { measureServeMemory, type ServeMemory } from './serve-memory.ts';
import { ensureTools } from './tools.ts';
import { benchWorkers } from './workers.ts';
import { measureRules, RULES_ROUNDS, type RulesReport } from './rules-report.ts';
import type { UpdateJob, UpdateReport } from './updates.ts';
import { measureLarge, type LargeConfig } from './large/run.ts';
import { benchOverload } from './overload.ts';
import { measureApiServer } from './apiserver.ts';
import { renderApiServerSection } from './apiserver-report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECTIONS = ['core', 'rules', 'updates', 'http', 'large', 'apiserver'] as const;
type Section = (typeof SECTIONS)[number];

/** The per-request budget given to `serve` in every HTTP run, ms: its default. */
const BUDGET_MS = 5;

const FULL = {
  nodes: [100, 1_000, 5_000, 10_000],
  policyCounts: [1, 10, 100],
  samples: 20_000,
  batchDecisions: 50_000,
  heapDecisions: 1_000_000,
  rules: { nodes: [100, 1_000, 10_000], decisions: 3_000, rounds: RULES_ROUNDS },
  updates: { nodes: 5_000, endpoints: 50_000, events: 2_000 },
  http: { nodes: 1_000, policies: 100, seconds: 3, rounds: 5, fractions: [0.25, 0.5, 0.8] },
  serveMemory: { nodes: [1_000, 10_000], policies: 100, requests: 300 },
  large: { sizes: [100, 10_000, 65_000], samples: 20_000, canaryEvents: 100, churnSeconds: 5, serveRequests: 100 },
  apiserver: { pods: 100, replicas: 100, rounds: 2 },
};

const QUICK: typeof FULL = {
  nodes: [100, 1_000],
  policyCounts: [1, 10, 100],
  samples: 1_000,
  batchDecisions: 1_000,
  heapDecisions: 10_000,
  rules: { nodes: [100, 1_000], decisions: 300, rounds: 1 },
  updates: { nodes: 500, endpoints: 5_000, events: 100 },
  http: { nodes: 200, policies: 10, seconds: 1, rounds: 1, fractions: [0.5] },
  serveMemory: { nodes: [100, 1_000], policies: 100, requests: 50 },
  large: { sizes: [100, 1_000], samples: 2_000, canaryEvents: 10, churnSeconds: 1, serveRequests: 10 },
  apiserver: { pods: 20, replicas: 20, rounds: 1 },
};

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

async function decisionSection(config: typeof FULL): Promise<DecisionReport[]> {
  const reports: DecisionReport[] = [];
  const largest = config.nodes.at(-1)!;
  for (const nodes of config.nodes) {
    const job: DecisionJob = {
      nodes,
      policyCounts: config.policyCounts,
      samples: config.samples,
      batchDecisions: config.batchDecisions,
      heapDecisions: nodes === largest ? config.heapDecisions : 0,
      baseline: true,
    };
    log(`decision core: ${nodes} nodes`);
    reports.push(await runChild<DecisionReport>('./decisions.ts', job, [], 15 * 60_000));
  }
  return reports;
}

/** The rules from measured data and DRA (bench/rules.ts), a fresh process per model size and round. */
function rulesSection(config: typeof FULL): Promise<RulesReport[]> {
  return measureRules(config.rules.nodes, config.rules.decisions, config.rules.rounds, log);
}

/** `topogate serve` as its own process, per topology file size: the webhook's RSS, not the benchmark's. */
async function serveMemorySection(config: typeof FULL, out: string): Promise<ServeMemory[]> {
  const { nodes: sizes, policies, requests } = config.serveMemory;
  const reports: ServeMemory[] = [];
  for (const nodes of sizes) {
    log(`serve memory: ${nodes} nodes, ${policies} policies, ${requests} requests`);
    const setup = await prepareHttp(join(out, 'serve-memory', String(nodes)), nodes, policies, BUDGET_MS);
    reports.push(await measureServeMemory(setup, requests));
  }
  return reports;
}

async function newestProfile(dir: string): Promise<string | undefined> {
  const file = mainThreadProfile(await readdir(dir).catch(() => []));
  return file === undefined ? undefined : join(dir, file);
}

async function profileDecisions(config: typeof FULL, dir: string): Promise<Profile> {
  // Four times the decisions of a measurement, so that start-up and the model build weigh little in the profile.
  const job: DecisionJob = {
    nodes: config.nodes.at(-1)!,
    policyCounts: [config.policyCounts.at(-1)!],
    samples: config.samples,
    batchDecisions: 4 * config.batchDecisions,
    heapDecisions: 0,
    baseline: false,
  };
  log(`profile: decisions at ${job.nodes} nodes and ${job.policyCounts[0]} policies`);
  await runChild<DecisionReport>('./decisions.ts', job, ['--cpu-prof', '--cpu-prof-dir', dir], 15 * 60_000);
  const file = await newestProfile(dir);
  return {
    what: `in-process decisions, ${job.nodes} nodes × ${job.policyCounts[0]} policies (the process's start-up and model build included)`,
    hotspots: file ? await hotspots(file) : [],
  };
}

async function profileServe(setup: HttpSetup, seconds: number, uniquePods: boolean): Promise<Profile> {
  const dir = join(setup.dir, uniquePods ? 'serve-profile-new' : 'serve-profile-replicas');
  await rm(dir, { recursive: true, force: true });
  const load = uniquePods ? 'every Pod new' : 'the same Pod (replicas)';
  log(`profile: topogate serve under wrk keep-alive load, ${load}`);
  const server = await startTopogate(setup, ['--cpu-prof', '--cpu-prof-dir', dir]);
  try {
    await wrk({ port: server.port, bodyFile: setup.bodyFile, seconds, uniquePods });
  } finally {
    await server.stop();
  }
  const file = await newestProfile(dir);
  return {
    what: `topogate serve under wrk, 25 keep-alive connections, ${load}, ${seconds} s (includes start-up)`,
    hotspots: file ? await hotspots(file) : [],
    ...(file ? {} : { note: 'serve wrote no profile: it did not exit normally on SIGTERM' }),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
  const quick = values.quick === true;
  const only = new Set<Section>(values.only ? (values.only.split(',') as Section[]) : SECTIONS);
  for (const section of only)
    if (!SECTIONS.includes(section))
      throw new Error(`--only: unknown section "${section}" (sections: ${SECTIONS.join(', ')})`);
  const config = quick ? QUICK : FULL;
  const out = join(ROOT, 'bench', 'out');
  const resultsDir = quick ? out : join(ROOT, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  const started = Date.now();
  const machine = describeMachine();
  const tools = only.has('http') ? await ensureTools(log) : undefined;

  const failures: Failure[] = [];
  /** A part that fails is reported as failed, and the others still run. */
  const guarded = async <T>(part: string, work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      log(`${part} failed: ${(error as Error).message}`);
      failures.push({ section: part, message: (error as Error).message });
      return undefined;
    }
  };
  const attempt = <T>(section: Section, work: () => Promise<T>) =>
    only.has(section) ? guarded(section, work) : Promise.resolve(undefined);
  const decisions = await attempt('core', () => decisionSection(config));
  const serveMemory = only.has('core')
    ? await guarded('serve memory', () => serveMemorySection(config, out))
    : undefined;
  const rules = await attempt('rules', () => rulesSection(config));
  const updates = await attempt('updates', () => {
    log(`topology updates: ${config.updates.nodes} nodes, ${config.updates.endpoints} endpoints`);
    return runChild<UpdateReport>('./updates.ts', config.updates satisfies UpdateJob, [], 15 * 60_000);
  });
  let httpSetup: HttpSetup | undefined;
  const http = await attempt('http', async () => {
    log(`http: ${config.http.nodes} nodes, ${config.http.policies} policies`);
    httpSetup = await prepareHttp(join(out, 'http'), config.http.nodes, config.http.policies, BUDGET_MS);
    return benchHttp(httpSetup, config.http, log);
  });

  const overloadSetup = httpSetup;
  const overload =
    overloadSetup &&
    (await guarded('overload', () => {
      log('http: overload, 256 against 16 connections, with and without CPU-bound neighbours');
      return benchOverload(
        overloadSetup,
        // An even number of rounds: each load runs first in half of them (overload-report.ts).
        { seconds: config.http.seconds, rounds: Math.min(4, 2 * Math.ceil(config.http.rounds / 2)) },
        log,
      );
    }));
  const large = await attempt('large', () => measureLarge(config.large satisfies LargeConfig, log));

  const setupForWorkers = httpSetup;
  const workers =
    setupForWorkers &&
    (await guarded('workers', () => {
      log('http: one serve process against two behind one listener');
      return benchWorkers(setupForWorkers, config.http);
    }));

  // The e2e control plane (test/e2e/harness): its binaries built once, `npm run cluster -- build`.
  const apiserver = await attempt('apiserver', () => measureApiServer(config.apiserver, log));

  const profiles: Profile[] = [];
  const profileDir = join(out, 'profiles');
  await rm(profileDir, { recursive: true, force: true });
  await mkdir(profileDir, { recursive: true });
  const results: BenchResults = {
    machine,
    quick,
    tools,
    decisions,
    serveMemory,
    rules,
    updates,
    http,
    workers,
    large,
    overload,
    apiserver,
    profiles,
    failures,
    seconds: 0,
  };
  const missed = renderReport(results).missed;
  const setup = httpSetup;
  const decisionProfile =
    missed.decisions && decisions
      ? await guarded('decision profile', () => profileDecisions(config, profileDir))
      : undefined;
  // The new-Pod case first: it is the one furthest from the no-op.
  const serveProfiles = [];
  if (missed.http && setup)
    for (const uniquePods of [true, false])
      serveProfiles.push(
        await guarded('serve profile', () => profileServe(setup, config.http.seconds + 2, uniquePods)),
      );
  for (const profile of [decisionProfile, ...serveProfiles]) if (profile) profiles.push(profile);

  const final: BenchResults = { ...results, seconds: Math.round((Date.now() - started) / 1000) };
  const chart = decisions ? renderChart(decisions) : undefined;
  if (chart) await writeFile(join(resultsDir, 'decision-latency.svg'), chart);
  await writeFile(join(resultsDir, 'results.json'), `${JSON.stringify(final, null, 2)}\n`);
  const reportFile = quick ? join(out, 'BENCHMARKS.md') : join(ROOT, 'BENCHMARKS.md');
  if (apiserver) await writeFile(join(resultsDir, 'apiserver.md'), renderApiServerSection(apiserver));
  // Sections measured by scripts of their own (bench/probe.ts, bench/probe-fleet.ts, bench/soak.ts, bench/placement/,
  // bench/discover.ts, and bench/apiserver.ts when this run did not measure it) stay as their last run wrote them.
  const kept = (
    await Promise.all(
      [
        'probe.md',
        'probe-fleet.md',
        'soak.md',
        'placement.md',
        ...(apiserver ? [] : ['apiserver.md']),
        'discover.md',
      ].map((file) => readFile(join(ROOT, 'bench', 'results', file), 'utf8').catch(() => '')),
    )
  )
    .filter(Boolean)
    .join('\n');
  await writeFile(
    reportFile,
    `${renderReport(final, quick ? 'decision-latency.svg' : 'bench/results/decision-latency.svg').markdown}${kept && `\n${kept}`}`,
  );
  log(`wrote ${reportFile} in ${final.seconds} s`);
}

await main();

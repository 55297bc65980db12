// `npm run bench:placement [-- --quick] [--seeds N] [--state FILE]`: what
// topogate's placement is worth, on the e2e control plane. Starts a cluster
// of its own (or uses the one `npm run cluster -- up --state FILE` started),
// runs every scenario with and without topogate's policies for each seed, and
// writes bench/results/placement.{json,md,svg} and its BENCHMARKS.md section
// (with --quick: bench/out/placement/ only).

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ClusterState } from '../../test/e2e/harness/cluster.ts';
import { attachCluster, startCluster } from '../../test/e2e/harness/cluster.ts';
import { repoRoot } from '../../test/e2e/harness/versions.ts';
import { withSection } from '../sections.ts';
import { runOnCluster, writeJson } from './cluster-run.ts';
import { buildFabric } from './fabric.ts';
import type { ArmRun } from './fabric-run.ts';
import type { SchedulerCost } from './scheduler-cost.ts';
import { CONTROLLER_MANAGER_ARGS, runFabric, TAS_API_SERVER_ARGS, TAS_SCHEDULER_ARGS } from './fabric-run.ts';
import type { FabricResults } from './fabric-summary.ts';
import { fabricResults } from './fabric-summary.ts';
import type { ArmName } from './trace.ts';
import { ARMS } from './trace.ts';
import type { Run } from './cluster-run.ts';
import { parseServiceGraph } from './graph.ts';
import { PEERS_HEADING, peersSection, placementChart, placementSection, SECTION_HEADING } from './report.ts';
import type { RunPlacement } from './summary.ts';
import type { PlacementResults } from './summary.ts';
import { placementResults, withPeers } from './summary.ts';
import { gangsThatFitRacks } from './metrics.ts';
import { GANG_POD, GANG_SIZE, gangCount } from './workloads.ts';
import { parseQuantity } from '../../src/kube/quantity.ts';

const usage =
  'usage: npm run bench:placement [-- --quick] [--seeds N] [--state FILE] [--out DIR] [--fabric-only [--arms A,B]] [--peers FABRIC_JSON]';

export function runPlacements(runs: readonly Run[]): RunPlacement[] {
  return runs.map((run) => ({
    seed: run.seed,
    mode: run.mode,
    facts: run.fleet.facts,
    scenarios: run.scenarios.map((s) => ({
      name: s.scenario.name,
      scenario: { pods: s.pods, edges: s.scenario.edges, gpuNeeds: s.scenario.gpuNeeds, gangs: s.scenario.gangs },
      notMutated: s.notMutated,
      warned: s.warned,
      deferred: s.deferred,
      gated: s.gated,
    })),
  }));
}

/** Why a peer wins a row or a goal is missed, written by hand from the runs: kept as runs rewrite the section. */
const peersWhy = () => readFileSync(join(repoRoot, 'bench', 'placement', 'peers-why.md'), 'utf8');

const gangRequest = Object.fromEntries(
  Object.entries(GANG_POD.requests).map(([name, value]) => [name, parseQuantity(value) ?? 0]),
);

/**
 * `--fabric-only`: the peers into bench/results (placement.json's summary and `peers`, the plot, the part of
 * the BENCHMARKS.md section from "### Against the peers" on), the scenarios kept as the last full run left them.
 */
function writePeersOnly(peers: FabricResults): void {
  const dir = join(repoRoot, 'bench', 'results');
  const last = JSON.parse(readFileSync(join(dir, 'placement.json'), 'utf8')) as PlacementResults;
  const { rttReduction, crossZoneBytesReduction, pendingDefault, pendingTopogate } = last.summary;
  const results = withPeers(
    { scenarios: last.scenarios, summary: { rttReduction, crossZoneBytesReduction, pendingDefault, pendingTopogate } },
    peers,
  );
  writeJson(dir, 'placement.json', results);
  writeFileSync(join(dir, 'placement.svg'), placementChart(results, peers));
  const benchmarks = join(repoRoot, 'BENCHMARKS.md');
  const text = readFileSync(benchmarks, 'utf8');
  const at = text.indexOf(SECTION_HEADING);
  const end = text.indexOf('\n## ', at + SECTION_HEADING.length);
  const section = text.slice(at, end < 0 ? undefined : end + 1);
  const cut = section.indexOf(PEERS_HEADING);
  const updated = `${(cut < 0 ? section : section.slice(0, cut)).trimEnd()}\n\n${peersSection(peers, peersWhy()).join('\n').trimEnd()}\n`;
  writeFileSync(join(dir, 'placement.md'), updated);
  writeFileSync(benchmarks, withSection(text, SECTION_HEADING, updated));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      seeds: { type: 'string' },
      out: { type: 'string' },
      state: { type: 'string' },
      'fabric-only': { type: 'boolean', default: false },
      arms: { type: 'string' },
      peers: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  // The peer comparison again from a fabric.json a run wrote (after peers-why.md changed): no cluster.
  if (values.peers) {
    writePeersOnly(JSON.parse(readFileSync(values.peers, 'utf8')) as FabricResults);
    return 0;
  }
  const seedCount = Number(values.seeds ?? (values.quick ? 1 : 3));
  if (!Number.isInteger(seedCount) || seedCount < 1 || seedCount > 9) {
    process.stderr.write(`--seeds must be 1-9\n${usage}\n`);
    return 2;
  }
  const arms = (values.arms?.split(',') ?? ARMS) as ArmName[];
  const unknown = arms.filter((arm) => !(ARMS as readonly string[]).includes(arm));
  if (unknown.length > 0 || (values.arms !== undefined && !values['fabric-only'])) {
    process.stderr.write(`--arms: only with --fabric-only, of ${ARMS.join(', ')}\n${usage}\n`);
    return 2;
  }
  const started = Date.now();
  const log = (line: string) =>
    process.stderr.write(`[placement ${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
  const graph = parseServiceGraph(JSON.parse(readFileSync(join(repoRoot, 'bench/data/online-boutique.json'), 'utf8')));
  const cluster = values.state
    ? attachCluster(JSON.parse(readFileSync(values.state, 'utf8')) as ClusterState)
    : await startCluster({
        apiServerArgs: TAS_API_SERVER_ARGS,
        schedulerArgs: TAS_SCHEDULER_ARGS,
        controllerManagerArgs: CONTROLLER_MANAGER_ARGS,
      });
  log(values.state ? `using the cluster of ${values.state}` : `started a control plane in ${cluster.dir}`);
  let runs: Run[] = [];
  const fabric = buildFabric(1);
  let fabricRun: { arms: Map<ArmName, ArmRun | string>; schedulerCost: SchedulerCost | null };
  try {
    if (!values['fabric-only'])
      runs = await runOnCluster({
        cluster,
        seeds: Array.from({ length: seedCount }, (_, i) => i + 1),
        graph,
        quick: values.quick,
        log,
      });
    fabricRun = await runFabric({
      cluster,
      fabric,
      graph: parseServiceGraph(JSON.parse(readFileSync(join(repoRoot, 'bench/data/online-boutique.json'), 'utf8'))),
      arms,
      scratch: mkdtempSync(join(cluster.dir, 'fabric-')),
      log,
    });
  } finally {
    if (!values.state) await cluster.stop();
  }
  const armRuns = fabricRun.arms;
  const peers = fabricResults(fabric, armRuns, fabricRun.schedulerCost);
  const results = withPeers(placementResults(runPlacements(runs)), peers);
  const seconds = Math.round((Date.now() - started) / 1000);
  // Where every Pod of every arm went: not committed (bench/out/), for reading a figure back.
  writeJson(
    join(repoRoot, 'bench', 'out', 'placement'),
    'fabric-pods.json',
    Object.fromEntries([...armRuns].map(([arm, run]) => [arm, typeof run === 'string' ? run : run.pods])),
  );
  if (values['fabric-only']) {
    writeJson(join(repoRoot, 'bench', 'out', 'placement'), 'fabric.json', peers);
    if (!values.out) writePeersOnly(peers);
    process.stdout.write(`${peersSection(peers, peersWhy()).join('\n')}\n`);
    log(`wrote the peer comparison in ${seconds} s`);
    return 0;
  }
  const out =
    values.out ?? (values.quick ? join(repoRoot, 'bench', 'out', 'placement') : join(repoRoot, 'bench', 'results'));
  writeJson(out, 'placement.json', results);
  // Every Pod of every run with what topogate wrote on it: not committed (bench/out/), for reading a figure back.
  writeJson(
    join(repoRoot, 'bench', 'out', 'placement'),
    'runs.json',
    runs.map((run) => ({
      seed: run.seed,
      mode: run.mode,
      scenarios: run.scenarios.map((s) => ({ name: s.scenario.name, pods: s.records })),
    })),
  );
  writeFileSync(join(out, 'placement.svg'), placementChart(results, peers));
  const section = placementSection(
    results,
    {
      seeds: seedCount,
      seconds,
      quick: values.quick,
      pods: runs.map((run) => run.scenarios.reduce((sum, s) => sum + s.pods.length, 0)),
      settleSeconds: runs.map((run) => run.settleSeconds),
      gangRoom: runs
        .filter((run) => run.mode === 'default')
        .map((run) => gangsThatFitRacks(run.fleet.facts.values(), gangRequest, GANG_SIZE)),
      gangs: gangCount(values.quick),
    },
    peers,
    peersWhy(),
  );
  writeFileSync(join(out, 'placement.md'), section);
  const benchmarks = join(repoRoot, 'BENCHMARKS.md');
  if (!values.quick && !values.out)
    writeFileSync(benchmarks, withSection(readFileSync(benchmarks, 'utf8'), SECTION_HEADING, section));
  process.stdout.write(section);
  log(`wrote ${out}/placement.{json,md,svg} in ${seconds} s`);
  return 0;
}

if (import.meta.main) process.exitCode = await main();

// What `topogate discover` costs and how right it is, on seeded synthetic fleets (bench/discover-fleet.ts):
// zones of 5 blocks of racks of 10 nodes, 35 % of the pairs missing, ±15 % noise, 0.5 % of the nodes
// degraded by +3 ms, 5 % of the zone labels wrong.
//
//   node bench/discover.ts [--nodes 1000,2000] [--runs 3]
//
// Per size: the wall and CPU time of discover() in process (the median of the runs), the whole command
// (reading and parsing the --rtt file, as `topogate discover` runs it, in a child process), the pair F1 of the
// best derived level for each true level, and precision/recall of the wrong labels. Writes
// bench/results/discover.md and puts it in BENCHMARKS.md (where `npm run bench` keeps it from then on).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { discover } from '../src/discover/discover.ts';
import { median } from '../src/stats/order.ts';
import { pairF1, syntheticFleet } from './discover-fleet.ts';
import { withSection } from './sections.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const HEADING = '## 11. `topogate discover`: topology from measurement';
const { values } = parseArgs({
  options: { nodes: { type: 'string', default: '1000,2000' }, runs: { type: 'string', default: '3' } },
});
const runs = Number(values.runs);

const rows: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'topogate-bench-discover-'));
try {
  for (const size of values.nodes.split(',').map(Number)) {
    const racksPerBlock = Math.max(1, Math.round(size / 4 / 5 / 10));
    const fleet = syntheticFleet({
      seed: size,
      zones: 4,
      blocksPerZone: 5,
      racksPerBlock,
      nodesPerRack: 10,
      degraded: Math.max(1, Math.round(size / 200)),
      wrongLabels: 0.05,
    });
    const wall: number[] = [];
    const cpu: number[] = [];
    let result = discover(fleet.pairs, fleet.nodes);
    for (let run = 0; run < runs; run++) {
      const [startWall, startCpu] = [performance.now(), process.cpuUsage()];
      result = discover(fleet.pairs, fleet.nodes);
      const used = process.cpuUsage(startCpu);
      wall.push(performance.now() - startWall);
      cpu.push((used.user + used.system) / 1000);
    }
    const file = join(scratch, 'rtt.json');
    writeFileSync(file, JSON.stringify({ pairs: fleet.pairs }));
    const bytes = readFileSync(file).length;
    const command = commandCost(file);
    const found = Array.from({ length: result.levels }, (_, level) =>
      fleet.names.map((name) => result.nodes[name]![level]!),
    );
    const f1 = fleet.truth.map((truth) => Math.max(0, ...found.map((level) => pairF1(truth, level))));
    const flagged = result.mislabeled.map((entry) => entry.node);
    const right = flagged.filter((node) => fleet.wrong.has(node)).length;
    const degradedFound = result.degraded.filter((entry) => fleet.degraded.has(entry.node)).length;
    rows.push(
      `| ${fleet.names.length} | ${fleet.pairs.length} (${(bytes / 1048576).toFixed(1)} MB) | ${median(wall).toFixed(0)} | ${median(cpu).toFixed(0)} | ${command.wall.toFixed(0)} | ${command.cpu?.toFixed(0) ?? '–'} | ${result.levels} | ${f1.map((value) => value.toFixed(3)).join(' / ')} | ${(right / flagged.length).toFixed(2)} / ${(right / fleet.wrong.size).toFixed(2)} (${fleet.wrong.size}) | ${degradedFound} of ${fleet.degraded.size} |`,
    );
    console.log(rows.at(-1));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const section = `${HEADING}

\`node bench/discover.ts --nodes ${values.nodes} --runs ${runs}\`, ${new Date().toISOString()}, load average ${loadavg()
  .map((value) => value.toFixed(1))
  .join(
    ', ',
  )} on ${cpus().length} cores. Seeded fleets of 4 zones × 5 blocks × racks of 10 nodes (in-rack 0.1 ms, in-block 0.25, in-zone 0.6, zone pairs 1–2.5 ms), ±15 % noise, 35 % of the pairs missing, 0.5 % of the nodes degraded by +3 ms, 5 % of the zone labels wrong (docs/discover.md). discover() is the pure derivation in process (median of ${runs} runs); the command is \`topogate discover --rtt FILE\` end to end in a new process (start-up, reading and parsing the file, output), its CPU time user + system from /usr/bin/time. Wall time on this shared machine is several times the CPU time: compare CPU.

| nodes | pairs measured (JSON) | discover() wall ms | discover() CPU ms | command wall ms | command CPU ms | levels | pair F1 zone / block / rack | wrong labels precision / recall (wrong) | degraded found |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
await writeFile(join(ROOT, 'bench/results/discover.md'), section);
const report = join(ROOT, 'BENCHMARKS.md');
await writeFile(report, withSection(readFileSync(report, 'utf8'), HEADING, section));

/** `topogate discover --rtt file` in a new process: wall ms, and user + system CPU ms where /usr/bin/time says. */
function commandCost(file: string): { wall: number; cpu: number | undefined } {
  const command = [process.execPath, join(ROOT, 'bin/topogate.ts'), 'discover', '--rtt', file];
  const timed = existsSync('/usr/bin/time');
  const started = performance.now();
  const child = timed
    ? spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', ...command], { encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', maxBuffer: 1 << 30 });
  const wall = performance.now() - started;
  if (child.status !== 0) throw new Error(`topogate discover failed: ${child.stderr}`);
  const times = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(child.stderr ?? '');
  return { wall, cpu: times ? (Number(times[1]) + Number(times[2])) * 1000 : undefined };
}

// `npm run cluster -- <up|down|status|build>`: the harness's control plane for
// people and for other suites. `up` leaves the processes running and saves
// their state; `down` reads it back and stops them.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureBinaries } from './build.ts';
import type { ClusterState } from './cluster.ts';
import { attachCluster, clusterState, startCluster } from './cluster.ts';
import { clusterEndpoints } from './endpoints.ts';
import { runs } from './process.ts';
import { binDir, cacheRoot } from './versions.ts';

const usage = `Usage: npm run cluster -- <command> [flags]

Commands:
  up [--etcd-members 1|3]   start etcd, kube-apiserver, kube-scheduler and kube-controller-manager
                            on loopback; the last line printed is \`export KUBECONFIG=<path>\`
  down                      stop the cluster that \`up\` started and remove its temp dir
  status [--output json]    show the running cluster's endpoints (every metrics URL) and processes
  build                     build the control plane into the cache, or check it is there

Flags:
  --output json             status: one JSON object {kubeconfig, apiServer, etcd: [{name, clientURL,
                            metricsURL}], scheduler: {metricsURL}, controllerManager: {metricsURL}, …}
  --state FILE              where \`up\` saves the cluster's state (default: $TOPOGATE_CLUSTER_STATE,
                            else ${join(cacheRoot(), 'cluster.json')})
`;

interface Flags {
  readonly command: string | undefined;
  readonly stateFile: string;
  readonly etcdMembers: 1 | 3;
  readonly json: boolean;
}

function parse(argv: readonly string[]): Flags | string {
  let command: string | undefined;
  let stateFile = process.env['TOPOGATE_CLUSTER_STATE'] ?? join(cacheRoot(), 'cluster.json');
  let etcdMembers: 1 | 3 = 1;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.split('=', 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--etcd-members') {
      const members = value();
      if (members !== '1' && members !== '3') return `--etcd-members must be 1 or 3, not ${members ?? 'nothing'}`;
      etcdMembers = members === '1' ? 1 : 3;
    } else if (flag === '--output') {
      const format = value();
      if (format !== 'json') return `--output must be json, not ${format ?? 'nothing'}`;
      json = true;
    } else if (flag === '--state') {
      const file = value();
      if (!file) return '--state needs a file';
      stateFile = file;
    } else if (arg.startsWith('-')) return `unknown flag ${arg}`;
    else if (command === undefined) command = arg;
    else return `unexpected argument ${arg}`;
  }
  return { command, stateFile, etcdMembers, json };
}

function readState(file: string): ClusterState | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
}

async function up(flags: Flags): Promise<number> {
  const previous = readState(flags.stateFile);
  if (previous?.components.some((c) => runs(c.pid, c.command))) {
    process.stderr.write(`a cluster is already up (${previous.dir}); run \`npm run cluster -- down\` first\n`);
    return 1;
  }
  const cluster = await startCluster({ etcdMembers: flags.etcdMembers, detach: true });
  const state = clusterState(cluster);
  mkdirSync(dirname(flags.stateFile), { recursive: true });
  writeFileSync(flags.stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });
  process.stdout.write(describe(state));
  process.stdout.write(`# stop it with: npm run cluster -- down\nexport KUBECONFIG=${cluster.kubeconfig}\n`);
  return 0;
}

function describe(state: ClusterState): string {
  const lines = [
    `# API server:   ${state.server}`,
    `# kubectl:      ${state.kubectl}`,
    ...state.etcd.map((m) => `# ${m.name}:       client ${m.clientUrl}  metrics ${m.metricsUrl}/metrics`),
    `# scheduler:    metrics https://127.0.0.1:${state.schedulerPort}/metrics`,
    `# controller manager: metrics https://127.0.0.1:${state.controllerManagerPort}/metrics`,
    ...state.components.map(
      (c) =>
        `# ${c.name.padEnd(15)} pid ${c.pid} ${runs(c.pid, c.command) ? 'running' : 'NOT RUNNING'}  log ${c.logFile}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

async function down(flags: Flags): Promise<number> {
  const state = readState(flags.stateFile);
  if (!state) {
    process.stdout.write(`no cluster is up (no ${flags.stateFile})\n`);
    return 0;
  }
  await attachCluster(state).stop();
  rmSync(flags.stateFile, { force: true });
  process.stdout.write(`stopped the cluster in ${state.dir}\n`);
  return 0;
}

async function status(flags: Flags): Promise<number> {
  const state = readState(flags.stateFile);
  if (!state) {
    (flags.json ? process.stderr : process.stdout).write(`no cluster is up (no ${flags.stateFile})\n`);
    return 1;
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(clusterEndpoints(state), null, 2)}\n`);
  else process.stdout.write(`${describe(state)}export KUBECONFIG=${state.kubeconfig}\n`);
  return state.components.every((c) => runs(c.pid, c.command)) ? 0 : 1;
}

async function build(): Promise<number> {
  await ensureBinaries();
  process.stdout.write(`control plane binaries in ${binDir()}\n`);
  return 0;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage);
    return 0;
  }
  const flags = parse(argv);
  if (typeof flags === 'string') {
    process.stderr.write(`cluster: ${flags}\n\n${usage}`);
    return 2;
  }
  const commands: Record<string, (flags: Flags) => Promise<number>> = { up, down, status, build };
  const run = flags.command === undefined ? undefined : commands[flags.command];
  if (!run) {
    process.stderr.write(
      `${flags.command === undefined ? '' : `cluster: unknown command ${flags.command}\n\n`}${usage}`,
    );
    return 2;
  }
  try {
    return await run(flags);
  } catch (error) {
    process.stderr.write(`cluster ${flags.command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

// `npm run cluster -- <up|down|status|build>`: the harness's control plane for
// people and for other suites. `up` leaves the processes running and saves
// their state; `down` reads it back and stops them.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureBinaries, ensureNodeBinaries } from './build.ts';
import type { ClusterState, RealNodes } from './cluster.ts';
import { setDelay } from './delay.ts';
import { saveImage } from './nodeimages.ts';
import { parseZone } from './nodeplan.ts';
import { importImage } from './nodes.ts';
import { attachCluster, clusterState, startCluster } from './cluster.ts';
import { clusterEndpoints } from './endpoints.ts';
import { isAlive, runs } from './process.ts';
import { binDir, cacheRoot } from './versions.ts';

/** Each node costs about 150 MB and a few % of a core; more than this would not fit the test machines. */
const maxNodes = 9;

const usage = `Usage: npm run cluster -- <command> [flags]

Commands:
  up [--etcd-members 1|3] [--nodes N]
                            start etcd, kube-apiserver, kube-scheduler and kube-controller-manager
                            on loopback; the last line printed is \`export KUBECONFIG=<path>\`.
                            --nodes N (0 to ${maxNodes}) adds real nodes node-1…node-N (kubelet, containerd,
                            kube-proxy), in zones zone-a, zone-b, zone-c round-robin, each in its own
                            network namespace; the API server then listens on 10.250.0.1
  load-image REF            copy a podman image into every node's containerd
  delay FROM_ZONE TO_ZONE MS
                            add MS of round-trip delay between two zones' nodes (both ways); 0 removes it
  down                      stop the cluster that \`up\` started and remove its temp dir
  status [--output json]    show the running cluster's endpoints (every metrics URL) and processes
  build [--nodes N]         build the control plane (and with N > 0 the nodes' binaries) into the cache,
                            or check they are there

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
  readonly nodes: number;
  /** The command's own arguments (load-image REF, delay FROM TO MS). */
  readonly args: readonly string[];
}

function parse(argv: readonly string[]): Flags | string {
  let command: string | undefined;
  let stateFile = process.env['TOPOGATE_CLUSTER_STATE'] ?? join(cacheRoot(), 'cluster.json');
  let etcdMembers: 1 | 3 = 1;
  let json = false;
  let nodes = 0;
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.split('=', 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--etcd-members') {
      const members = value();
      if (members !== '1' && members !== '3') return `--etcd-members must be 1 or 3, not ${members ?? 'nothing'}`;
      etcdMembers = members === '1' ? 1 : 3;
    } else if (flag === '--nodes') {
      const count = value();
      if (!count || !/^\d+$/.test(count) || Number(count) > maxNodes) {
        return `--nodes must be a whole number from 0 to ${maxNodes}, not ${count ?? 'nothing'}`;
      }
      nodes = Number(count);
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
    else args.push(arg);
  }
  const wanted = { 'load-image': 1, delay: 3 }[command ?? ''] ?? 0;
  if (args.length !== wanted) return `${command ?? 'cluster'} takes ${wanted} argument(s), not ${args.length}`;
  return { command, stateFile, etcdMembers, json, nodes, args };
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
  const cluster = await startCluster({ etcdMembers: flags.etcdMembers, detach: true, nodes: flags.nodes });
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
    ...(state.nodes?.nodes ?? []).map(
      (n) =>
        `# ${n.name.padEnd(15)} ${n.zone} ${n.ip} Pods ${n.podCidr} netns ${n.netns} pid ${n.pid} ` +
        `${isAlive(n.pid) ? 'running' : 'NOT RUNNING'}  logs ${n.paths.logDir}`,
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

function nodesOf(flags: Flags): RealNodes {
  const nodes = readState(flags.stateFile)?.nodes;
  if (!nodes) throw new Error('no cluster with nodes is up: npm run cluster -- up --nodes 3');
  return nodes;
}

async function loadImage(flags: Flags): Promise<number> {
  const [ref = ''] = flags.args;
  const nodes = nodesOf(flags);
  const saved = await saveImage(ref);
  try {
    await importImage(nodes, saved.archive);
  } finally {
    saved.remove();
  }
  process.stdout.write(`loaded ${ref} into ${nodes.nodes.map((n) => n.name).join(', ')}\n`);
  return 0;
}

async function delay(flags: Flags): Promise<number> {
  const [from = '', to = '', ms = ''] = flags.args;
  if (!/^\d+(\.\d+)?$/.test(ms)) throw new Error(`the delay is a number of milliseconds, not ${ms}`);
  await setDelay(nodesOf(flags).delayer, parseZone(from), parseZone(to), Number(ms));
  process.stdout.write(
    Number(ms) === 0 ? `no delay between ${from} and ${to}\n` : `${ms} ms round trip between ${from} and ${to}\n`,
  );
  return 0;
}

async function build(flags: Flags): Promise<number> {
  await ensureBinaries();
  if (flags.nodes > 0) await ensureNodeBinaries();
  process.stdout.write(`${flags.nodes > 0 ? 'control plane and node' : 'control plane'} binaries in ${binDir()}\n`);
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
  const commands: Record<string, (flags: Flags) => Promise<number>> = {
    up,
    down,
    status,
    build,
    'load-image': loadImage,
    delay,
  };
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

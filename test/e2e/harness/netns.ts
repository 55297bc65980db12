// The real nodes' network (nodeplan.ts draws it): a router namespace linked to the host, and one
// namespace per node linked to the router. Only the project's own namespaces, links and one host route
// (the zones' prefix, through the router) are made; the host's sysctls are never written, which is why
// forwarding happens in the router namespace and not on the host.

import { execFile, execFileSync } from 'node:child_process';
import type { NodePlan } from './nodeplan.ts';
import { network } from './nodeplan.ts';

/** Runs a command, rejecting with its stderr; a bounded wait, as every network step is quick. */
export function sh(command: string, args: readonly string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

const inNetns = (netns: string, ...args: string[]) => sh('ip', ['-n', netns, ...args]);

/** Writes sysctls inside a project namespace (per-namespace net.* values, never the host's). */
function netnsSysctls(netns: string, values: Readonly<Record<string, string>>): Promise<string> {
  const script = Object.entries(values)
    .map(([key, value]) => `echo ${value} > /proc/sys/${key.replaceAll('.', '/')}`)
    .join(' && ');
  return sh('ip', ['netns', 'exec', netns, 'sh', '-c', script]);
}

/** The project's namespaces left on the machine (by an earlier run that could not clean up). */
export async function leftoverNetns(): Promise<string[]> {
  const listed = await sh('ip', ['netns', 'list']);
  return listed
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => /^topogate-(router|node-\d+)$/.test(name));
}

export async function createNetwork(nodes: readonly NodePlan[]): Promise<void> {
  const leftovers = await leftoverNetns();
  if (leftovers.length > 0) {
    throw new Error(
      `network namespaces ${leftovers.join(', ')} are left from another cluster: npm run cluster -- down`,
    );
  }
  const router = network.routerNetns;
  await sh('ip', ['netns', 'add', router]);
  await netnsSysctls(router, {
    'net.ipv4.ip_forward': '1',
    'net.ipv4.conf.all.rp_filter': '0',
    'net.ipv4.conf.default.rp_filter': '0',
  });
  await inNetns(router, 'link', 'set', 'lo', 'up');
  await sh('ip', [
    'link',
    'add',
    network.hostVeth,
    'type',
    'veth',
    'peer',
    'name',
    network.routerVeth,
    'netns',
    router,
  ]);
  await sh('ip', ['addr', 'add', `${network.hostIp}/30`, 'dev', network.hostVeth]);
  await sh('ip', ['link', 'set', network.hostVeth, 'up']);
  await inNetns(router, 'addr', 'add', `${network.routerIp}/30`, 'dev', network.routerVeth);
  await inNetns(router, 'link', 'set', network.routerVeth, 'up');
  await sh('ip', ['route', 'add', network.nodesCidr, 'via', network.routerIp, 'dev', network.hostVeth]);
  // Delayed traffic goes to the TUN (rules per zone pair, delay.ts); what the delayer writes back comes in
  // on the TUN and is routed normally.
  await inNetns(router, 'tuntap', 'add', 'dev', network.delayTun, 'mode', 'tun');
  await inNetns(router, 'link', 'set', network.delayTun, 'up');
  await inNetns(router, 'route', 'add', 'default', 'dev', network.delayTun, 'table', String(network.delayTable));
  await inNetns(router, 'rule', 'add', 'iif', network.delayTun, 'lookup', 'main', 'pref', '100');
  for (const node of nodes) await createNodeNetns(node);
}

async function createNodeNetns(node: NodePlan): Promise<void> {
  const router = network.routerNetns;
  await sh('ip', ['netns', 'add', node.netns]);
  await inNetns(router, 'link', 'add', node.routerVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', node.netns);
  await inNetns(router, 'link', 'set', node.routerVeth, 'up');
  await inNetns(router, 'route', 'add', `${node.ip}/32`, 'dev', node.routerVeth);
  await inNetns(router, 'route', 'add', node.podCidr, 'via', node.ip, 'dev', node.routerVeth);
  await inNetns(node.netns, 'link', 'set', 'lo', 'up');
  await inNetns(node.netns, 'addr', 'add', `${node.ip}/32`, 'dev', 'eth0');
  await inNetns(node.netns, 'link', 'set', 'eth0', 'up');
  await inNetns(node.netns, 'route', 'add', network.routerIp, 'dev', 'eth0');
  await inNetns(node.netns, 'route', 'add', 'default', 'via', network.routerIp, 'dev', 'eth0');
}

/** Removes every project namespace (their links go with them), the host link and route; never fails. */
export async function destroyNetwork(): Promise<void> {
  const quietly = (promise: Promise<unknown>) => promise.catch(() => undefined);
  await quietly(sh('ip', ['route', 'del', network.nodesCidr, 'via', network.routerIp]));
  await quietly(sh('ip', ['link', 'del', network.hostVeth]));
  for (const netns of await leftoverNetns().catch(() => [])) await quietly(sh('ip', ['netns', 'del', netns]));
}

/** destroyNetwork for an exiting process (synchronous); never throws. */
export function destroyNetworkSync(): void {
  const quietly = (args: string[]) => {
    try {
      return execFileSync('ip', args, { timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    } catch {
      return '';
    }
  };
  quietly(['route', 'del', network.nodesCidr, 'via', network.routerIp]);
  quietly(['link', 'del', network.hostVeth]);
  for (const line of quietly(['netns', 'list']).split('\n')) {
    const name = line.split(' ')[0] ?? '';
    if (/^topogate-(router|node-\d+)$/.test(name)) quietly(['netns', 'del', name]);
  }
}

// `topogate probe`: the per-node network probe agent (docs/probe.md). Flags say
// what it measures; the rest bound its rates and its failover.

import type { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { DEFAULT_WRITE_POLICY } from '../probe/write-policy.ts';
import { parseQuantity } from '../kube/quantity.ts';
import { startAgent, type AgentOptions } from '../probe/shell/agent.ts';
import { MAX_BULK_BYTES } from '../probe/shell/bulk.ts';
import { parseDuration } from '../server/duration.ts';
import { type Command, type CommandIO, EXIT, parseFlags } from './command.ts';
import { loadKubeConfig } from '../kube-client/kubeconfig.ts';

const usage = `Usage: topogate probe [flags]

The per-node network probe (one per node, a DaemonSet). Measures TCP round
trips to the other probe Pods, publishes a summary, and, while it holds the
Lease topogate-probe in NS, writes NetworkTopology/default status.

Flags:
  --node-name N          the Node this agent speaks for (default: env NODE_NAME)
  --listen HOST:PORT     answer probes and HTTP here, and send probes from HOST
                         (default 0.0.0.0:9471)
  --namespace NS         where the probe DaemonSet's Pods and the Lease are
                         (default topogate)
  --selector SEL         label selector of the probe Pods
                         (default app.kubernetes.io/name=topogate-probe)
  --kubeconfig F         (default: in-cluster, else $KUBECONFIG)
  --interval D           base probe round, adaptive in [D/4, 2D] (default 2s)
  --peers-per-round N    peers probed per round; every zone gets one even
                         beyond N (default 8)
  --timeout D            a probe not answered within D is lost (default 1s)
  --lease-duration D     Lease duration: a dead writer is replaced within about
                         D + --renew + --write-period (default 15s)
  --renew D              Lease renew / retry period (default 2s)
  --write-period D       the writer gathers and may write at most this often
                         (default 5s)
  --refresh D            rewrite unchanged status this often (default 60s)
  --cilium-metrics URL   also read a Cilium agent's /metrics: its per-target
                         node connectivity latency (repeatable)
  --bandwidth-period D   measure throughput between zones once per D: two
                         agents per zone send to one peer per other zone
                         (default 0: off; bandwidth stays declared)
  --bandwidth-bytes Q    bytes per transfer, a quantity such as 16Mi
                         (default 16Mi, at most 256Mi)
  --log-level L          (default info)
`;

const options = {
  'node-name': { type: 'string' },
  listen: { type: 'string', default: '0.0.0.0:9471' },
  namespace: { type: 'string', default: 'topogate' },
  selector: { type: 'string', default: 'app.kubernetes.io/name=topogate-probe' },
  kubeconfig: { type: 'string' },
  interval: { type: 'string', default: '2s' },
  'peers-per-round': { type: 'string', default: '8' },
  timeout: { type: 'string', default: '1s' },
  'lease-duration': { type: 'string', default: '15s' },
  renew: { type: 'string', default: '2s' },
  'write-period': { type: 'string', default: `${DEFAULT_WRITE_POLICY.minPeriodMs / 1000}s` },
  refresh: { type: 'string', default: `${DEFAULT_WRITE_POLICY.refreshMs / 1000}s` },
  'cilium-metrics': { type: 'string', multiple: true, default: [] as string[] },
  'bandwidth-period': { type: 'string', default: '0' },
  'bandwidth-bytes': { type: 'string', default: '16Mi' },
  'log-level': { type: 'string', default: 'info' },
} as const;

/** The flags, checked: the agent's options, and what the command itself reads. */
interface ProbeSettings {
  readonly agent: Omit<AgentOptions, 'config' | 'log' | 'registry'>;
  readonly kubeconfig: string | undefined;
  readonly logLevel: string;
}

export const probe: Command = {
  summary: 'per-node network probe: measures zone RTTs, one agent writes NetworkTopology status',
  usage,
  async run(args, io) {
    const settings = parseArgs(args, io);
    if (typeof settings === 'number') return settings;
    const { node } = settings.agent;
    let config: KubeConfig;
    try {
      config = loadKubeConfig(settings.kubeconfig);
    } catch (error) {
      io.stderr.write(`topogate probe: kubeconfig: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    const log = pino({ level: settings.logLevel, base: { node } }, io.stdout);
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    let agent;
    try {
      agent = await startAgent({ ...settings.agent, config, log, registry });
    } catch (error) {
      io.stderr.write(`topogate probe: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    await agent.stop();
    log.info('topogate probe stopped');
    return EXIT.ok;
  },
};

/** The settings, or the exit code of bad usage (said on stderr with the usage). */
function parseArgs(args: readonly string[], io: CommandIO): ProbeSettings | number {
  const parsed = parseFlags('probe', usage, io, { args: [...args], options, strict: true, allowPositionals: false });
  if (!parsed) return EXIT.usage;
  const values = parsed.values;
  const problem = (message: string) => {
    io.stderr.write(`topogate probe: ${message}\n\n${usage}`);
    return EXIT.usage;
  };
  const node = values['node-name'] ?? process.env.NODE_NAME;
  if (!node) return problem('--node-name or env NODE_NAME is required');
  const listen = parseHostPort(values.listen);
  if (!listen) return problem(`--listen ${values.listen}: want HOST:PORT`);
  const durations: Record<string, number> = {};
  for (const flag of ['interval', 'timeout', 'lease-duration', 'renew', 'write-period', 'refresh'] as const) {
    const ms = parseDuration(values[flag]);
    if (ms === undefined || ms <= 0) return problem(`--${flag} ${values[flag]}: want a duration such as 2s`);
    durations[flag] = ms;
  }
  const peersPerRound = Number(values['peers-per-round']);
  if (!Number.isInteger(peersPerRound) || peersPerRound < 1)
    return problem(`--peers-per-round ${values['peers-per-round']}: want a positive integer`);
  if (durations.renew! >= durations['lease-duration']!) return problem('--renew must be shorter than --lease-duration');
  const bandwidthPeriodMs = values['bandwidth-period'] === '0' ? 0 : parseDuration(values['bandwidth-period']);
  if (bandwidthPeriodMs === undefined || bandwidthPeriodMs < 0)
    return problem(`--bandwidth-period ${values['bandwidth-period']}: want a duration such as 10m, or 0 for off`);
  const bandwidthBytes = (parseQuantity(values['bandwidth-bytes']) ?? NaN) / 1000;
  if (!Number.isInteger(bandwidthBytes) || bandwidthBytes < 1 || bandwidthBytes > MAX_BULK_BYTES)
    return problem(`--bandwidth-bytes ${values['bandwidth-bytes']}: want a quantity from 1 to 256Mi`);
  const agent = {
    node,
    host: listen.host,
    port: listen.port,
    namespace: values.namespace,
    selector: values.selector,
    intervalMs: durations.interval!,
    timeoutMs: durations.timeout!,
    peersPerRound,
    leaseMs: durations['lease-duration']!,
    renewMs: durations.renew!,
    writePolicy: { minPeriodMs: durations['write-period']!, refreshMs: durations.refresh! },
    ciliumMetrics: values['cilium-metrics'],
    ...(bandwidthPeriodMs > 0 && { bandwidth: { periodMs: bandwidthPeriodMs, bytes: bandwidthBytes } }),
  };
  return { agent, kubeconfig: values.kubeconfig, logLevel: values['log-level'] };
}

/** HOST:PORT, [IPv6]:PORT, or IPv6:PORT as $(POD_IP):9471 expands on an IPv6 Pod (split at the last colon). */
function parseHostPort(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|(.+)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  return host && Number.isInteger(port) && port < 65536 ? { host, port } : undefined;
}

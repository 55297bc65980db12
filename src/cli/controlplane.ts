// `topogate controlplane`: measures the control plane once, over a short
// window, and prints ControlPlane's status (docs/controlplane.md): the figures
// serve keeps writing, taken here by one process in one go.

import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { ControlPlaneCollector } from '../controlplane/shell/collector.ts';
import { formatStatus, isStatusOutput, type StatusOutput } from '../controlplane/describe.ts';
import { processIdentity } from '../controlplane/shell/identity.ts';
import { parseDuration } from '../server/duration.ts';
import { createKubeTopology } from '../sources/topology/kube.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import type { Command, CommandIO } from './command.ts';
import { EXIT, parseFlags } from './command.ts';
import { loadKubeConfig } from '../kube-client/kubeconfig.ts';
import { stderrLog } from './stderr-log.ts';

const usage = `Usage: topogate controlplane [--kubeconfig F] [--etcd-metrics URL…] [--scheduler-metrics URL] [--output json]

Measures the control plane as \`serve --topology kube\` does, once: scrapes the
API server's, etcd members' and the scheduler's metrics at the start and the end
of a window (p99s and counts are over it), reads the scheduler's and controller
manager's leader Leases, times its own watch heartbeat Lease through the window,
places each leader and member on its Node and zone, and prints the ControlPlane
status: figures and findings, most serious first.

  --kubeconfig F           kubeconfig file (default: KUBECONFIG, ~/.kube/config,
                           or the in-cluster service account)
  --etcd-metrics URL       an etcd member's metrics URL (repeatable; default: the
                           EtcdCluster object, without disk figures)
  --scheduler-metrics URL  kube-scheduler's secure /metrics, read with the
                           kubeconfig's credentials and verified with its CA
  --scheduler-insecure-skip-tls-verify
                           do not verify the scheduler's certificate (kubeadm's
                           is self-signed); the credentials are still sent
  --output json|yaml|text  json: exactly the status object (default text)
  --window D               how long to measure, e.g. 10s, 1m (default 10s)
  --namespace NS           where the heartbeat Lease is made, and deleted after
                           (default "default")
  --webhook-name NAME      topogate's webhook as the API server's metrics name it
                           (default pods.topogate.dev)
  --timeout SECONDS        how long to wait for the topology to sync (default 30)

Exit 0 when printed, 1 when the cluster cannot be reached, 2 on bad usage.
`;

const flags = {
  kubeconfig: { type: 'string' },
  'etcd-metrics': { type: 'string', multiple: true },
  'scheduler-metrics': { type: 'string' },
  'scheduler-insecure-skip-tls-verify': { type: 'boolean', default: false },
  output: { type: 'string', default: 'text' },
  window: { type: 'string', default: '10s' },
  namespace: { type: 'string', default: 'default' },
  'webhook-name': { type: 'string', default: 'pods.topogate.dev' },
  timeout: { type: 'string', default: '30' },
} as const;

type Values = NonNullable<ReturnType<typeof parseFlags<{ args: string[]; options: typeof flags }>>>['values'];

/** The flags, checked. */
interface Settings {
  readonly values: Values;
  readonly windowMs: number;
  readonly output: StatusOutput;
  readonly timeoutSeconds: number;
}

export const controlplane: Command = {
  summary: "measures the control plane once and prints ControlPlane's status",
  usage,
  async run(args, io) {
    const settings = parseArgs(args, io);
    if (typeof settings === 'number') return settings;
    const { values, windowMs, output, timeoutSeconds } = settings;
    const log = stderrLog('controlplane', io.stderr);
    let kubeConfig: KubeConfig;
    let topology;
    try {
      kubeConfig = loadKubeConfig(values.kubeconfig);
      topology = createKubeTopology({
        ...(values.kubeconfig !== undefined && { kubeconfig: values.kubeconfig }),
        etcdMetrics: values['etcd-metrics'] ?? [],
        log,
        registry: new Registry(),
      });
    } catch (error) {
      io.stderr.write(`topogate controlplane: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    const collector = collectorFor(values, kubeConfig, () => topology.current(), windowMs, log);
    try {
      await topology.ready(timeoutSeconds * 1000);
      const status = await collector.measure(windowMs);
      io.stdout.write(formatStatus(status, output));
      return EXIT.ok;
    } catch (error) {
      io.stderr.write(`topogate controlplane: ${(error as Error).message}\n`);
      return EXIT.failed;
    } finally {
      await collector.stop();
      await topology.stop();
    }
  },
};

/** The settings, or the exit code of bad usage (said on stderr with the usage). */
function parseArgs(args: readonly string[], io: CommandIO): Settings | number {
  const parsed = parseFlags('controlplane', usage, io, { args: [...args], options: flags });
  if (parsed === undefined) return EXIT.usage;
  const { values } = parsed;
  const bad = (message: string) => {
    io.stderr.write(`topogate controlplane: ${message}\n\n${usage}`);
    return EXIT.usage;
  };
  const windowMs = parseDuration(values.window);
  if (windowMs === undefined || windowMs < 1000)
    return bad(`--window must be a duration of at least 1s, not "${values.window}"`);
  const output = values.output;
  if (!isStatusOutput(output)) return bad(`--output must be json, yaml or text, not "${output}"`);
  const timeoutSeconds = Number(values.timeout);
  if (!(timeoutSeconds > 0)) return bad(`--timeout must be a positive number of seconds, not "${values.timeout}"`);
  const urls = [
    ...(values['etcd-metrics'] ?? []),
    ...(values['scheduler-metrics'] ? [values['scheduler-metrics']] : []),
  ];
  const badUrl = urls.find((url) => !/^https?:\/\/[^/]/.test(url));
  if (badUrl !== undefined) return bad(`"${badUrl}" is not an http(s) URL`);
  if (values['scheduler-insecure-skip-tls-verify'] && values['scheduler-metrics'] === undefined)
    return bad('--scheduler-insecure-skip-tls-verify needs --scheduler-metrics');
  return { values, windowMs, output, timeoutSeconds };
}

function collectorFor(
  values: Values,
  config: KubeConfig,
  topology: () => TopologySnapshot,
  windowMs: number,
  log: Logger,
): ControlPlaneCollector {
  return new ControlPlaneCollector({
    config,
    topology,
    etcdMetrics: values['etcd-metrics'] ?? [],
    ...(values['scheduler-metrics'] !== undefined && { schedulerMetrics: values['scheduler-metrics'] }),
    schedulerSkipTlsVerify: values['scheduler-insecure-skip-tls-verify'],
    webhookName: values['webhook-name'],
    namespace: values.namespace,
    identity: `cli-${processIdentity(false)}`,
    // About ten heartbeats in the window; the two scrapes are measure()'s.
    timing: {
      intervalMs: windowMs,
      timeoutMs: 5_000,
      windowMs: 2 * windowMs,
      heartbeatMs: Math.min(5_000, Math.max(200, windowMs / 10)),
    },
    log,
  });
}

// `topogate serve`: the webhook with its policies, topology and certificates.
// With no flags it runs the embedded default from the package (policies/,
// examples/cluster/, certs/ beside this source, whatever the cwd), making a
// certificate on first start, so that `npm start` works on a fresh clone.

import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino, { type Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { certificateFiles, writeCertificates } from '../certs/write.ts';
import { createClusterPolicies } from '../policy/clusterPolicies.ts';
import { createPolicyStore } from '../policy/store.ts';
import { readClientCa } from '../server/clientAuth.ts';
import { createDecider } from '../server/decider.ts';
import { parseDuration } from '../server/duration.ts';
import { startWebhookServer } from '../server/server.ts';
import type { TopologyProvider } from '../topology/provider.ts';
import { createFileTopology } from '../topology/sources/file-topology.ts';
import type { KubeTopology } from '../topology/sources/kube.ts';
import type { Command, CommandIO } from './command.ts';
import { EXIT } from './command.ts';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const usage = `Usage: topogate serve [flags]

Runs the mutating admission webhook over HTTPS: POST /mutate, GET /healthz,
/readyz and /metrics. With no flags it serves the embedded default: the
policies in policies/, the demo cluster in examples/cluster/ and certificates
in certs/ (made on first start, valid for localhost), on https://127.0.0.1:8443.
Default paths are those of the topogate package, not of the current directory;
paths given as flags are relative to the current directory.

Flags:
  --policies DIR         SchedulingPolicy files (default: the package's policies/)
  --topology kube|PATH…  kube: watch the API server; else files or folders of
                         objects, repeatable (default: kube inside a cluster,
                         that is when KUBERNETES_SERVICE_HOST is set, else the
                         package's examples/cluster/)
  --host H               address to listen on (default 127.0.0.1; 0.0.0.0 inside a cluster)
  --port N               port (default 8443; 0 picks a free one)
  --cert-dir DIR         tls.crt and tls.key, reloaded when they change (default:
                         the package's certs/; made there when both are missing)
  --client-ca FILE       /mutate answers only clients presenting a certificate
                         this CA signed (the API server's, from its
                         AdmissionConfiguration kubeconfig); probes need none
  --budget-ms MS         per-request latency budget (default 5): a Pod that
                         would be answered later is admitted unchanged at once,
                         with a warning
  --kubeconfig F         with --topology kube: the cluster to watch (default:
                         KUBECONFIG, ~/.kube/config, or the in-cluster account)
  --etcd-metrics URL     with --topology kube: an etcd member's metrics URL,
                         repeatable (default: EtcdCluster objects)
  --max-source-age D     topology older than this degrades the rules that need
                         it, e.g. 90s, 10m, 1h (default 10m)
  --log-level L          ${logLevels.join(', ')} (default info; debug logs one line per request)

Stops on SIGTERM or SIGINT after in-flight requests finish; SIGHUP re-reads the policies.
`;

export interface ServeConfig {
  readonly policies: string;
  readonly topology: 'kube' | readonly string[];
  readonly host: string;
  readonly port: number;
  readonly certDir: string;
  readonly clientCa?: string;
  readonly budgetMs: number;
  readonly kubeconfig?: string;
  readonly etcdMetrics: readonly string[];
  readonly maxSourceAgeMs: number;
  readonly logLevel: string;
}

export type ParsedServeArgs =
  { readonly ok: true; readonly config: ServeConfig } | { readonly ok: false; readonly message: string };

export function parseServeArgs(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): ParsedServeArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      tokens: true,
      options: {
        policies: { type: 'string' },
        topology: { type: 'string', multiple: true },
        host: { type: 'string' },
        port: { type: 'string', default: '8443' },
        'cert-dir': { type: 'string' },
        'client-ca': { type: 'string' },
        'budget-ms': { type: 'string', default: '5' },
        kubeconfig: { type: 'string' },
        'etcd-metrics': { type: 'string', multiple: true, default: [] },
        'max-source-age': { type: 'string', default: '10m' },
        'log-level': { type: 'string', default: 'info' },
      },
    });
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const { values, tokens } = parsed;
  // `--topology a b c`: paths may follow the flag as separate arguments.
  const topologyPaths = [...(values.topology ?? [])];
  let afterTopology = false;
  for (const token of tokens) {
    if (token.kind === 'option') afterTopology = token.name === 'topology';
    else if (token.kind === 'positional' && afterTopology) topologyPaths.push(token.value);
    else if (token.kind === 'positional') return { ok: false, message: `unexpected argument "${token.value}"` };
  }

  const inCluster = Boolean(env.KUBERNETES_SERVICE_HOST);
  const kube = topologyPaths.length === 0 ? inCluster : topologyPaths.includes('kube');
  if (kube && topologyPaths.length > 1) return { ok: false, message: '--topology kube cannot be combined with paths' };
  if (!kube && (values.kubeconfig !== undefined || values['etcd-metrics'].length > 0))
    return { ok: false, message: '--kubeconfig and --etcd-metrics need --topology kube' };
  const badUrl = values['etcd-metrics'].find((url) => !/^https?:\/\/[^/]/.test(url));
  if (badUrl !== undefined) return { ok: false, message: `--etcd-metrics "${badUrl}" is not an http(s) URL` };

  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return { ok: false, message: `--port must be a whole number from 0 to 65535, not "${values.port}"` };
  const budgetMs = Number(values['budget-ms']);
  if (!(budgetMs > 0) || !Number.isFinite(budgetMs))
    return {
      ok: false,
      message: `--budget-ms must be a positive number of milliseconds, not "${values['budget-ms']}"`,
    };
  const maxSourceAgeMs = parseDuration(values['max-source-age']);
  if (maxSourceAgeMs === undefined)
    return {
      ok: false,
      message: `--max-source-age must be a duration such as 90s, 10m or 1h, not "${values['max-source-age']}"`,
    };
  if (!logLevels.includes(values['log-level']))
    return { ok: false, message: `--log-level must be one of ${logLevels.join(', ')}, not "${values['log-level']}"` };

  const fromCwd = (path: string | undefined, fallback: string): string =>
    path === undefined ? fallback : resolve(cwd, path);
  return {
    ok: true,
    config: {
      policies: fromCwd(values.policies, join(packageRoot, 'policies')),
      topology: kube
        ? 'kube'
        : topologyPaths.length > 0
          ? topologyPaths.map((path) => resolve(cwd, path))
          : [join(packageRoot, 'examples', 'cluster')],
      host: values.host ?? (inCluster ? '0.0.0.0' : '127.0.0.1'),
      port,
      certDir: fromCwd(values['cert-dir'], join(packageRoot, 'certs')),
      ...(values['client-ca'] !== undefined && { clientCa: resolve(cwd, values['client-ca']) }),
      budgetMs,
      ...(values.kubeconfig !== undefined && { kubeconfig: resolve(cwd, values.kubeconfig) }),
      etcdMetrics: values['etcd-metrics'],
      maxSourceAgeMs,
      logLevel: values['log-level'],
    },
  };
}

/** First start: no key pair at all in the directory (a README may be there). A lone half is the user's, and left alone. */
async function ensureCertificates(certDir: string, log: Logger): Promise<void> {
  const pair = [certificateFiles.tlsCert, certificateFiles.tlsKey];
  const present = await Promise.all(
    pair.map((file) =>
      access(join(certDir, file)).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (present.every(Boolean)) return;
  if (present.some(Boolean))
    throw new Error(
      `${certDir} holds ${pair.filter((_, index) => present[index]).join('')} without ${pair.filter((_, index) => !present[index]).join('')}: give both, or neither to have them made`,
    );
  // node-forge (2-3 MB of RSS in serve) is needed only to make them.
  const { issueCertificates } = await import('../certs/issue.ts');
  await writeCertificates(
    certDir,
    issueCertificates({ service: 'topogate', namespace: 'topogate-system', localhost: true }),
  );
  log.info(
    { certDir, ca: join(certDir, certificateFiles.caCert) },
    'no certificate found: made a CA and a serving certificate for localhost and the topogate Service',
  );
}

async function createTopology(
  config: ServeConfig,
  shell: { log: Logger; registry: Registry },
): Promise<TopologyProvider | KubeTopology> {
  if (config.topology !== 'kube') return createFileTopology(config.topology, shell);
  // Loaded only here: @kubernetes/client-node brings every generated API model, ~80 MB of RSS that files do not need.
  const { createKubeTopology } = await import('../topology/sources/kube.ts');
  return createKubeTopology({
    ...(config.kubeconfig !== undefined && { kubeconfig: config.kubeconfig }),
    etcdMetrics: config.etcdMetrics,
    maxAgeMs: config.maxSourceAgeMs,
    ...shell,
  });
}

/**
 * Start-up's one-time allocations (a 10,000-node topology file is 32 MB of JSON, parsed at once) leave V8 with
 * a young generation grown to its maximum and an old space full of holes, which it keeps: ~100 MB of RSS
 * holding nothing. A memory-reducing full GC gives them back. Node has no call for it without
 * --expose-gc, so the flag is set just long enough to fetch `gc` from a fresh context.
 */
function releaseStartUpGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

export interface RunningTopogate {
  readonly url: string;
  /** Re-reads the policies (SIGHUP). */
  reload(): Promise<void>;
  /** Stops accepting, finishes in-flight requests, stops the watches. */
  stop(): Promise<void>;
}

/** Everything `serve` runs, without the signal handling: for tests and embedding. */
export async function startTopogate(
  config: ServeConfig,
  shell: { log: Logger; registry: Registry },
): Promise<RunningTopogate> {
  await ensureCertificates(config.certDir, shell.log);
  const clientCa = config.clientCa === undefined ? undefined : await readClientCa(config.clientCa);
  const policies = await createPolicyStore({ dir: config.policies, ...shell });
  const topology = await createTopology(config, shell).catch(async (error: unknown) => {
    await policies.stop();
    throw error;
  });
  // In a cluster, SchedulingPolicy objects join the files (the combined provider stops the store).
  const inForce =
    'objects' in topology ? createClusterPolicies({ directory: policies, cluster: topology, ...shell }) : policies;
  const decider = createDecider({ policies: inForce, topology, maxSourceAgeMs: config.maxSourceAgeMs, log: shell.log });
  // The decider has compiled the policies against the topology: what start-up allocates once is all done.
  releaseStartUpGarbage();
  const stopSources = async () => {
    decider.stop();
    await Promise.all([inForce.stop(), topology.stop()]);
  };
  const server = await startWebhookServer({
    host: config.host,
    port: config.port,
    certDir: config.certDir,
    ...(clientCa !== undefined && { clientCa }),
    budgetMs: config.budgetMs,
    decide: decider.decide,
    checks: { policies: () => inForce.readiness(), topology: () => topology.readiness() },
    ...shell,
  }).catch(async (error: unknown) => {
    await stopSources();
    throw error;
  });
  return {
    url: server.url,
    reload: () => policies.reload(),
    async stop() {
      await server.close();
      await stopSources();
    },
  };
}

export const serve: Command = {
  summary: 'runs the webhook over HTTPS (the embedded demo by default)',
  usage,
  async run(args, io) {
    const parsed = parseServeArgs(args, io.cwd, process.env);
    if (!parsed.ok) {
      io.stderr.write(`topogate serve: ${parsed.message}\n\n${usage}`);
      return EXIT.usage;
    }
    const log = pino({ level: parsed.config.logLevel }, io.stdout);
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    let running: RunningTopogate;
    try {
      running = await startTopogate(parsed.config, { log, registry });
    } catch (error) {
      log.fatal({ err: error }, 'topogate could not start');
      io.stderr.write(`topogate serve: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    return untilSignal(running, log, io);
  },
};

function untilSignal(running: RunningTopogate, log: Logger, io: CommandIO): Promise<number> {
  return new Promise((done) => {
    const reload = () => void running.reload();
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop).off('SIGINT', stop).off('SIGHUP', reload);
      log.info({ signal }, 'shutting down: finishing in-flight requests');
      running.stop().then(
        () => done(EXIT.ok),
        (error: unknown) => {
          io.stderr.write(`topogate serve: shutdown failed: ${(error as Error).message}\n`);
          done(EXIT.failed);
        },
      );
    };
    process.once('SIGTERM', stop).once('SIGINT', stop).on('SIGHUP', reload);
  });
}

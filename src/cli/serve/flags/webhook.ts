// Where and how the webhook listens and answers.

import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDuration } from '../../../server/duration.ts';
import { defaultLimits } from '../../../server/limits.ts';
import { text, type FlagGroup } from './flag-group.ts';
import { packageRoot } from './package-root.ts';

export interface WebhookFlags {
  readonly host: string;
  readonly port: number;
  readonly certDir: string;
  /** Where first-start certificates go when the default certDir cannot be written (an image's read-only root). */
  readonly certFallbackDir?: string;
  readonly clientCa?: string;
  readonly budgetMs: number;
  readonly maxConnections: number;
  readonly shutdownGraceMs: number;
}

export const webhookFlags: FlagGroup<WebhookFlags> = {
  options: {
    host: { type: 'string' },
    port: { type: 'string', default: '8443' },
    'cert-dir': { type: 'string' },
    'client-ca': { type: 'string' },
    'budget-ms': { type: 'string', default: '5' },
    'max-connections': { type: 'string', default: String(defaultLimits.maxConnections) },
    'shutdown-grace': { type: 'string', default: `${defaultLimits.shutdownGraceMs / 1000}s` },
  },
  help: `  --host H               address to listen on (default 127.0.0.1; 0.0.0.0 inside a cluster)
  --port N               port (default 8443; 0 picks a free one)
  --cert-dir DIR         tls.crt and tls.key, reloaded when they change (default:
                         the package's certs/; made there when both are missing,
                         or in TMPDIR/topogate-certs when certs/ is read-only)
  --client-ca FILE       /mutate answers only clients presenting a certificate
                         this CA signed (the API server's, from its
                         AdmissionConfiguration kubeconfig); probes need none
  --budget-ms MS         per-request latency budget (default 5): a Pod that
                         would be answered later is deferred (see --defer), or
                         with --defer never admitted unchanged with a warning
  --max-connections N    open connections at most; more are dropped at accept
                         (default ${defaultLimits.maxConnections}: ~58 KB each idle, sized for a 512 Mi limit)
  --shutdown-grace D     on SIGTERM, how long in-flight requests may take before
                         every connection left is cut and serve exits (default ${defaultLimits.shutdownGraceMs / 1000}s)`,
  parse(values, { cwd, inCluster }) {
    const portText = text(values, 'port');
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      return { error: `--port must be a whole number from 0 to 65535, not "${portText}"` };
    const budgetText = text(values, 'budget-ms');
    const budgetMs = Number(budgetText);
    if (!(budgetMs > 0) || !Number.isFinite(budgetMs))
      return { error: `--budget-ms must be a positive number of milliseconds, not "${budgetText}"` };
    const connectionsText = text(values, 'max-connections');
    const maxConnections = Number(connectionsText);
    if (!Number.isInteger(maxConnections) || maxConnections < 1)
      return { error: `--max-connections must be a whole number of at least 1, not "${connectionsText}"` };
    const graceText = text(values, 'shutdown-grace') ?? '';
    const shutdownGraceMs = parseDuration(graceText);
    if (shutdownGraceMs === undefined)
      return { error: `--shutdown-grace must be a duration such as 10s, not "${graceText}"` };
    const certDir = text(values, 'cert-dir');
    const clientCa = text(values, 'client-ca');
    return {
      config: {
        host: text(values, 'host') ?? (inCluster ? '0.0.0.0' : '127.0.0.1'),
        port,
        ...(certDir === undefined
          ? { certDir: join(packageRoot, 'certs'), certFallbackDir: join(tmpdir(), 'topogate-certs') }
          : { certDir: resolve(cwd, certDir) }),
        ...(clientCa !== undefined && { clientCa: resolve(cwd, clientCa) }),
        budgetMs,
        maxConnections,
        shutdownGraceMs,
      },
    };
  },
};

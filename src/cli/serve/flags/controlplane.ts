// What measuring the control plane takes (with --topology kube): the
// scheduler's metrics URL, topogate's own webhook name as the API server
// reports it, where topogate keeps its Leases, and how often it scrapes.

import { readFileSync } from 'node:fs';
import { parseDuration } from '../../../server/duration.ts';
import { text, type FlagGroup } from './flag-group.ts';

export interface ControlPlaneFlags {
  readonly schedulerMetrics?: string;
  /** Read the scheduler's metrics without verifying its certificate (kubeadm's is self-signed). */
  readonly schedulerSkipTlsVerify: boolean;
  readonly webhookName: string;
  readonly leaseNamespace: string;
  readonly controlPlaneIntervalMs: number;
}

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** POD_NAMESPACE, else the namespace of the Pod's ServiceAccount, else topogate-system. */
function ownNamespace(env: NodeJS.ProcessEnv): string {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || 'topogate-system';
  } catch {
    return 'topogate-system';
  }
}

export const controlPlaneFlags: FlagGroup<ControlPlaneFlags> = {
  options: {
    'scheduler-metrics': { type: 'string' },
    'scheduler-insecure-skip-tls-verify': { type: 'boolean', default: false },
    'webhook-name': { type: 'string', default: 'pods.topogate.dev' },
    'lease-namespace': { type: 'string' },
    'controlplane-interval': { type: 'string', default: '15s' },
  },
  help: `  --scheduler-metrics URL  with --topology kube: kube-scheduler's secure /metrics,
                         read with topogate's own credentials, verified with the
                         kubeconfig's CA (default: scheduler figures left out)
  --scheduler-insecure-skip-tls-verify  do not verify the scheduler's certificate
                         (kubeadm's is self-signed); topogate's credentials are
                         still sent to whatever answers at the URL
  --webhook-name NAME    topogate's webhook in the MutatingWebhookConfiguration,
                         as the API server's metrics name it (default pods.topogate.dev)
  --lease-namespace NS   where topogate keeps its Leases (the watch heartbeat, the
                         ControlPlane writer's) (default: POD_NAMESPACE, the
                         ServiceAccount's namespace, else topogate-system)
  --controlplane-interval D  how often the control plane is scraped (default 15s)`,
  parse(values, { env }) {
    const schedulerMetrics = text(values, 'scheduler-metrics');
    if (schedulerMetrics !== undefined && !/^https?:\/\/[^/]/.test(schedulerMetrics))
      return { error: `--scheduler-metrics "${schedulerMetrics}" is not an http(s) URL` };
    const schedulerSkipTlsVerify = values['scheduler-insecure-skip-tls-verify'] === true;
    if (schedulerSkipTlsVerify && schedulerMetrics === undefined)
      return { error: '--scheduler-insecure-skip-tls-verify needs --scheduler-metrics' };
    const interval = text(values, 'controlplane-interval') ?? '';
    const controlPlaneIntervalMs = parseDuration(interval);
    if (controlPlaneIntervalMs === undefined || controlPlaneIntervalMs < 1000)
      return { error: `--controlplane-interval must be a duration of at least 1s, such as 15s, not "${interval}"` };
    return {
      config: {
        ...(schedulerMetrics !== undefined && { schedulerMetrics }),
        schedulerSkipTlsVerify,
        webhookName: text(values, 'webhook-name') ?? 'pods.topogate.dev',
        leaseNamespace: text(values, 'lease-namespace') ?? ownNamespace(env),
        controlPlaneIntervalMs,
      },
    };
  },
};

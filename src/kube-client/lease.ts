// One active replica by a coordination.k8s.io Lease, as client-go's leader
// election does it: the holder renews every retry period; another replica
// takes over once it has seen the same record unchanged for a whole lease
// duration (its own clock, so no clock skew matters). Writes carry the
// resourceVersion read, so two candidates never both win. On stop the holder
// gives the Lease up, so a restarted replica takes over at once.

import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeKubeError, statusOf } from './errors.ts';

export interface LeaseOptions {
  readonly config: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  readonly log: Logger;
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
  readonly leaseDurationMs?: number;
  readonly retryMs?: number;
  /** Default: `<hostname>_<random>`; `topogate probe` starts it with its node's name. */
  readonly identity?: string;
  /** How often a replica that does not hold the Lease looks at it (default retryMs): fewer reads when many campaign. */
  readonly candidateRetryMs?: number;
}

export interface LeaderElection {
  readonly identity: string;
  isLeader(): boolean;
  /** Stops campaigning; a holder gives the Lease up first. */
  stop(): Promise<void>;
}

export function elect(options: LeaseOptions): LeaderElection {
  const { namespace, name, log } = options;
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const retryMs = options.retryMs ?? 2_000;
  const api = options.config.makeApiClient(CoordinationV1Api);
  const identity = options.identity ?? `${hostname()}_${randomUUID().slice(0, 8)}`;
  const candidateRetryMs = options.candidateRetryMs ?? retryMs;
  let leading = false;
  let renewedAt = 0;
  let observed: { record: string; at: number } | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastError: string | undefined;

  // The API server takes MicroTime only with six fractional digits; a Date's JSON has three.
  const spec = (lease: V1Lease | undefined, now: V1MicroTime) => ({
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
    acquireTime:
      lease?.spec?.holderIdentity === identity && lease.spec.acquireTime
        ? new V1MicroTime(lease.spec.acquireTime)
        : now,
    renewTime: now,
    leaseTransitions: (lease?.spec?.leaseTransitions ?? 0) + (lease?.spec?.holderIdentity === identity ? 0 : 1),
  });

  async function tryAcquireOrRenew(): Promise<boolean> {
    const now = new V1MicroTime();
    let lease: V1Lease;
    try {
      lease = await api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      await api.createNamespacedLease({
        namespace,
        body: { metadata: { name, namespace }, spec: spec(undefined, now) },
      });
      return true;
    }
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== identity && holder !== '') {
      const record = JSON.stringify([holder, lease.spec?.renewTime, lease.metadata?.resourceVersion]);
      if (observed?.record !== record) observed = { record, at: Date.now() };
      if (Date.now() - observed.at < leaseDurationMs) return false;
    }
    await api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec: spec(lease, now) } });
    return true;
  }

  async function round(): Promise<void> {
    let stillHolds: boolean;
    try {
      stillHolds = await tryAcquireOrRenew();
      if (stillHolds) renewedAt = Date.now();
      lastError = undefined;
    } catch (error) {
      const message = describeKubeError(error);
      // A conflict is a lost race, not a fault: the next round reads the winner.
      if (statusOf(error) !== 409 && message !== lastError) log.warn({ lease: name }, `lease ${name}: ${message}`);
      lastError = message;
      // A holder that cannot renew steps down before another replica may take over.
      stillHolds = leading && Date.now() - renewedAt < leaseDurationMs - retryMs;
    }
    if (stillHolds !== leading && !stopped) {
      leading = stillHolds;
      log.info(
        { lease: name, identity },
        leading ? `holds lease ${name}: this replica is the active one` : `lost lease ${name}`,
      );
      (leading ? options.onStartedLeading : options.onStoppedLeading)();
    }
  }

  const loop = async () => {
    await round();
    if (!stopped) timer = setTimeout(loop, leading ? retryMs : candidateRetryMs);
  };
  void loop();

  return {
    identity,
    isLeader: () => leading,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      if (!leading) return;
      leading = false;
      options.onStoppedLeading();
      try {
        const lease = await api.readNamespacedLease({ name, namespace });
        if (lease.spec?.holderIdentity === identity)
          await api.replaceNamespacedLease({
            name,
            namespace,
            body: {
              ...lease,
              spec: { ...spec(lease, new V1MicroTime()), holderIdentity: '', leaseDurationSeconds: 1 },
            },
          });
      } catch (error) {
        log.warn({ lease: name }, `giving up lease ${name} failed: ${describeKubeError(error)}`);
      }
    },
  };
}

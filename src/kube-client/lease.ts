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
  const election = new Election(options);
  void election.loop();
  return { identity: election.identity, isLeader: () => election.leading, stop: () => election.stop() };
}

/** One replica's campaign: a round every retry period (a candidate's own period when it does not hold the Lease). */
class Election {
  readonly identity: string;
  leading = false;
  readonly #options: LeaseOptions;
  readonly #api: CoordinationV1Api;
  readonly #leaseDurationMs: number;
  readonly #retryMs: number;
  readonly #candidateRetryMs: number;
  #renewedAt = 0;
  /** Another holder's record as last read, and when it was first read so. */
  #observed: { record: string; at: number } | undefined;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #lastError: string | undefined;

  constructor(options: LeaseOptions) {
    this.#options = options;
    this.#api = options.config.makeApiClient(CoordinationV1Api);
    this.identity = options.identity ?? `${hostname()}_${randomUUID().slice(0, 8)}`;
    this.#leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.#retryMs = options.retryMs ?? 2_000;
    this.#candidateRetryMs = options.candidateRetryMs ?? this.#retryMs;
  }

  readonly loop = async (): Promise<void> => {
    await this.#round();
    if (!this.#stopped) this.#timer = setTimeout(this.loop, this.leading ? this.#retryMs : this.#candidateRetryMs);
  };

  async #round(): Promise<void> {
    const { name, log } = this.#options;
    let stillHolds: boolean;
    try {
      stillHolds = await this.#tryAcquireOrRenew();
      if (stillHolds) this.#renewedAt = Date.now();
      this.#lastError = undefined;
    } catch (error) {
      const message = describeKubeError(error);
      // A conflict is a lost race, not a fault: the next round reads the winner.
      if (statusOf(error) !== 409 && message !== this.#lastError)
        log.warn({ lease: name }, `lease ${name}: ${message}`);
      this.#lastError = message;
      // A holder that cannot renew steps down before another replica may take over.
      stillHolds = this.leading && Date.now() - this.#renewedAt < this.#leaseDurationMs - this.#retryMs;
    }
    if (stillHolds !== this.leading && !this.#stopped) {
      this.leading = stillHolds;
      log.info(
        { lease: name, identity: this.identity },
        this.leading ? `holds lease ${name}: this replica is the active one` : `lost lease ${name}`,
      );
      (this.leading ? this.#options.onStartedLeading : this.#options.onStoppedLeading)();
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { name, namespace } = this.#options;
    const now = new V1MicroTime();
    let lease: V1Lease;
    try {
      lease = await this.#api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      await this.#api.createNamespacedLease({
        namespace,
        body: { metadata: { name, namespace }, spec: this.#spec(undefined, now) },
      });
      return true;
    }
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.identity && holder !== '') {
      const record = JSON.stringify([holder, lease.spec?.renewTime, lease.metadata?.resourceVersion]);
      if (this.#observed?.record !== record) this.#observed = { record, at: Date.now() };
      if (Date.now() - this.#observed.at < this.#leaseDurationMs) return false;
    }
    await this.#api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec: this.#spec(lease, now) } });
    return true;
  }

  // The API server takes MicroTime only with six fractional digits; a Date's JSON has three.
  #spec(lease: V1Lease | undefined, now: V1MicroTime) {
    const identity = this.identity;
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.#leaseDurationMs / 1000),
      acquireTime:
        lease?.spec?.holderIdentity === identity && lease.spec.acquireTime
          ? new V1MicroTime(lease.spec.acquireTime)
          : now,
      renewTime: now,
      leaseTransitions: (lease?.spec?.leaseTransitions ?? 0) + (lease?.spec?.holderIdentity === identity ? 0 : 1),
    };
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    if (!this.leading) return;
    this.leading = false;
    this.#options.onStoppedLeading();
    await this.#giveUp();
  }

  /** A holder that stops gives the Lease up, so a restarted replica takes over at once. */
  async #giveUp(): Promise<void> {
    const { name, namespace, log } = this.#options;
    try {
      const lease = await this.#api.readNamespacedLease({ name, namespace });
      if (lease.spec?.holderIdentity === this.identity)
        await this.#api.replaceNamespacedLease({
          name,
          namespace,
          body: {
            ...lease,
            spec: { ...this.#spec(lease, new V1MicroTime()), holderIdentity: '', leaseDurationSeconds: 1 },
          },
        });
    } catch (error) {
      log.warn({ lease: name }, `giving up lease ${name} failed: ${describeKubeError(error)}`);
    }
  }
}

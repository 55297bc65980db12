// One holder at a time by a coordination.k8s.io/v1 Lease, as client-go's
// leaderelection does it: the holder renews every renewMs; a candidate takes
// the Lease once its record has not changed for leaseMs by the candidate's own
// clock (so clock skew between nodes does not matter); a holder that cannot
// renew for leaseMs × 2/3 steps down before anyone may take over. A holder
// that stops cleanly releases the Lease, so a rollout fails over at once.
// Candidates (every other agent) look only every leaseMs / 3, not every
// renewMs, so that 1,000 agents read the Lease ~200 times a second rather
// than 500; a dead holder is replaced within leaseMs + leaseMs / 3.

import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeKubeError, statusOf } from '../../topology/sources/errors.ts';

export interface LeaseOptions {
  readonly namespace: string;
  readonly name: string;
  /** Starts with the node's name, as the spec's §2 expects of a holder's identity. */
  readonly identity: string;
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly onChange: (leading: boolean) => void;
}

export class LeaseElector {
  readonly #api: CoordinationV1Api;
  readonly #options: LeaseOptions;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #leading = false;
  #renewedAt = 0;
  /** The other holder's record as last seen, and when (our clock) it last changed. */
  #seen: { readonly record: string; readonly at: number } | undefined;
  #stopped = false;

  constructor(config: KubeConfig, options: LeaseOptions, log: Logger) {
    this.#api = config.makeApiClient(CoordinationV1Api);
    this.#options = options;
    this.#log = log;
  }

  get leading(): boolean {
    return this.#leading;
  }

  start(): void {
    void this.#tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    if (!this.#leading) return;
    this.#set(false);
    try {
      const lease = await this.#read();
      if (lease?.spec?.holderIdentity === this.#options.identity) {
        lease.spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 };
        await this.#api.replaceNamespacedLease({
          namespace: this.#options.namespace,
          name: this.#options.name,
          body: lease,
        });
      }
    } catch (error) {
      this.#log.debug(`lease release failed: ${describeKubeError(error)}`);
    }
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const now = Date.now();
    try {
      this.#set(await this.#tryAcquireOrRenew(now));
    } catch (error) {
      this.#log.warn(`lease ${this.#options.namespace}/${this.#options.name}: ${describeKubeError(error)}`);
      if (this.#leading && now - this.#renewedAt > (this.#options.leaseMs * 2) / 3) this.#set(false);
    }
    if (this.#stopped) return;
    const { renewMs, leaseMs } = this.#options;
    this.#timer = setTimeout(() => void this.#tick(), this.#leading ? renewMs : Math.max(renewMs, leaseMs / 3));
  }

  async #tryAcquireOrRenew(now: number): Promise<boolean> {
    const { namespace, name, identity, leaseMs } = this.#options;
    const lease = await this.#read();
    const stamp = new Date(now);
    const durationSeconds = Math.max(1, Math.ceil(leaseMs / 1000));
    if (!lease) {
      await this.#api.createNamespacedLease({
        namespace,
        body: {
          metadata: { name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: stamp,
            renewTime: stamp,
            leaseTransitions: 0,
          },
        },
      });
      this.#renewedAt = now;
      return true;
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    if (holder !== identity) {
      const record = `${holder}\u0000${String(spec.renewTime)}\u0000${spec.leaseDurationSeconds}`;
      if (this.#seen?.record !== record) this.#seen = { record, at: now };
      const heldForMs = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      if (holder !== '' && now - this.#seen.at < heldForMs) return false;
    }
    lease.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: stamp,
      ...(holder === identity
        ? {}
        : { acquireTime: stamp, leaseTransitions: (spec.leaseTransitions ?? 0) + (holder === '' ? 0 : 1) }),
    };
    try {
      await this.#api.replaceNamespacedLease({ namespace, name, body: lease });
    } catch (error) {
      // Someone else wrote it first: they hold it this round.
      if (statusOf(error) === 409) return false;
      throw error;
    }
    this.#renewedAt = now;
    return true;
  }

  async #read(): Promise<V1Lease | undefined> {
    try {
      return await this.#api.readNamespacedLease({ namespace: this.#options.namespace, name: this.#options.name });
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  #set(leading: boolean): void {
    if (leading === this.#leading) return;
    this.#leading = leading;
    this.#log.info({ identity: this.#options.identity }, leading ? 'took the lease' : 'lost the lease');
    this.#options.onChange(leading);
  }
}

// One writer at a time, by a coordination.k8s.io Lease, as client-go's leader
// election does it: the holder renews every try; another candidate takes the
// Lease only once its renewTime is older than its duration; every write
// carries the resourceVersion read, so two candidates cannot both win.

import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { statusOf } from '../topology/sources/errors.ts';

export interface LeaseLockOptions {
  readonly namespace: string;
  readonly name: string;
  /** This candidate's identity (holderIdentity). */
  readonly identity: string;
  readonly durationSeconds: number;
}

export class LeaseLock {
  readonly #api: CoordinationV1Api;
  readonly #options: LeaseLockOptions;
  /** performance.now() of the last renewal that succeeded as holder. */
  #heldSince: number | undefined;

  constructor(config: KubeConfig, options: LeaseLockOptions) {
    this.#api = config.makeApiClient(CoordinationV1Api);
    this.#options = options;
  }

  /** Held, and renewed within its duration (a holder cut off from the API server stops believing it leads). */
  held(): boolean {
    return this.#heldSince !== undefined && performance.now() - this.#heldSince < this.#options.durationSeconds * 1000;
  }

  /** Takes or renews the Lease; resolves to whether this candidate holds it. Rejects on API errors. */
  async tryAcquire(now = new Date()): Promise<boolean> {
    const { namespace, name, identity, durationSeconds } = this.#options;
    const mine = { holderIdentity: identity, leaseDurationSeconds: durationSeconds, renewTime: now };
    let lease: V1Lease;
    try {
      lease = await this.#api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      await this.#api.createNamespacedLease({
        namespace,
        body: { metadata: { name, namespace }, spec: { ...mine, acquireTime: now, leaseTransitions: 0 } },
      });
      return this.#won();
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity;
    const renewedAt = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
    const expired = renewedAt + (spec.leaseDurationSeconds ?? durationSeconds) * 1000 < now.getTime();
    if (holder && holder !== identity && !expired) {
      this.#heldSince = undefined;
      return false;
    }
    const taking = holder !== identity;
    try {
      await this.#api.replaceNamespacedLease({
        name,
        namespace,
        body: {
          ...lease,
          spec: {
            ...spec,
            ...mine,
            ...(taking && { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
          },
        },
      });
    } catch (error) {
      // 409: another candidate wrote first; it holds the Lease now.
      if (statusOf(error) !== 409) throw error;
      this.#heldSince = undefined;
      return false;
    }
    return this.#won();
  }

  /** Gives the Lease up (on a graceful stop) so that another candidate takes over at once. */
  async release(): Promise<void> {
    if (!this.held()) return;
    this.#heldSince = undefined;
    const { namespace, name } = this.#options;
    const lease = await this.#api.readNamespacedLease({ name, namespace });
    if (lease.spec?.holderIdentity !== this.#options.identity) return;
    await this.#api.replaceNamespacedLease({
      name,
      namespace,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: undefined, renewTime: undefined } },
    });
  }

  #won(): boolean {
    this.#heldSince = performance.now();
    return true;
  }
}

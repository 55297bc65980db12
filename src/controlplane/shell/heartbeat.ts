// Watch end-to-end latency, measured by topogate itself: it renews a Lease of
// its own every interval and times how long its watch on that Lease takes to
// deliver the change, from just before the write is sent (so a sample is the
// write's latency plus the watch's delivery). Samples older than the window are
// dropped. A failure (no namespace, no permission, a broken watch) is recorded
// and tried again at the next interval, never sooner.

import { CoordinationV1Api, type KubeConfig, type V1Lease, V1MicroTime, Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeKubeError, statusOf } from '../../kube-client/errors.ts';
import type { PodOwner } from './identity.ts';

export interface HeartbeatOptions {
  readonly namespace: string;
  /** The Lease's name and holder: one per topogate process. */
  readonly name: string;
  readonly intervalMs: number;
  readonly windowMs: number;
  readonly log: Logger;
  /**
   * The Pod this process runs in: the Lease is its dependent, so the garbage collector removes it with the Pod
   * even when the process could not (killed, or its grants already gone at `helm uninstall`).
   */
  readonly owner?: PodOwner;
}

/** A write whose watch event has not come after this long is lost, not slow. */
const LOST_AFTER_MS = 10_000;

export class Heartbeat {
  readonly #api: CoordinationV1Api;
  readonly #watch: Watch;
  readonly #options: HeartbeatOptions;
  readonly #log: Logger;
  readonly #samples: { at: number; ms: number }[] = [];
  /** renewTime (epoch ms) → when its write was sent (performance.now()). */
  readonly #pending = new Map<number, number>();
  #lease: V1Lease | undefined;
  #watching: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #error: string | undefined;
  readonly #logged = new Set<string>();
  #observedAt: number | undefined;

  constructor(config: KubeConfig, options: HeartbeatOptions) {
    this.#api = config.makeApiClient(CoordinationV1Api);
    this.#watch = new Watch(config);
    this.#options = options;
    this.#log = options.log.child({ source: 'watch-heartbeat' });
  }

  start(): void {
    void this.#beat();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#watching?.abort();
    // Leave no Lease behind for a process that is gone.
    if (this.#lease) {
      await this.#api
        .deleteNamespacedLease({ name: this.#options.name, namespace: this.#options.namespace })
        .catch(() => undefined);
    }
  }

  /** Latencies (ms) within the window, oldest first. */
  samples(now = Date.now()): { samplesMs: number[]; observedAt?: number; error?: string } {
    while ((this.#samples[0]?.at ?? now) < now - this.#options.windowMs) this.#samples.shift();
    return {
      samplesMs: this.#samples.map((sample) => sample.ms),
      ...(this.#observedAt !== undefined && { observedAt: this.#observedAt }),
      ...(this.#error !== undefined && { error: this.#error }),
    };
  }

  async #beat(): Promise<void> {
    try {
      // The Lease first: without it (no namespace, no permission) there is nothing to watch.
      if (!this.#lease) this.#lease = await this.#ensureLease();
      if (!this.#watching) this.#watching = await this.#startWatch();
      await this.#renew();
      if (this.#error !== undefined) this.#log.info('the watch heartbeat works again');
      this.#error = undefined;
      this.#logged.clear();
    } catch (error) {
      this.#fail(error);
    }
    const cutoff = performance.now() - LOST_AFTER_MS;
    for (const [key, sentAt] of this.#pending) if (sentAt < cutoff) this.#pending.delete(key);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#beat(), this.#options.intervalMs);
    this.#timer.unref();
  }

  #startWatch(): Promise<AbortController> {
    const { namespace, name } = this.#options;
    return this.#watch.watch(
      `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
      { fieldSelector: `metadata.name=${name}`, allowWatchBookmarks: false },
      (phase, object: V1Lease) => {
        // A new watch begins with the Lease as it is (ADDED): a write made before the watch, not a delivery.
        if (phase !== 'MODIFIED') return;
        const renewed = object.spec?.renewTime;
        const key = renewed === undefined ? NaN : new Date(renewed).getTime();
        const sentAt = this.#pending.get(key);
        if (sentAt === undefined) return;
        this.#pending.delete(key);
        this.#samples.push({ at: Date.now(), ms: performance.now() - sentAt });
        this.#observedAt = Date.now();
      },
      (error: unknown) => {
        // Started again at the next beat; the writes in flight are lost to it.
        this.#watching = undefined;
        this.#pending.clear();
        if (error && !this.#stopped) this.#fail(error);
      },
    );
  }

  async #ensureLease(): Promise<V1Lease> {
    const { namespace, name, owner } = this.#options;
    try {
      return await this.#api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      const ownerReferences = owner && [{ apiVersion: 'v1', kind: 'Pod', name: owner.name, uid: owner.uid }];
      return this.#api.createNamespacedLease({
        namespace,
        body: {
          metadata: { name, namespace, ...(ownerReferences && { ownerReferences }) },
          spec: { holderIdentity: name, leaseDurationSeconds: 60, renewTime: new V1MicroTime() },
        },
      });
    }
  }

  async #renew(): Promise<void> {
    const { namespace, name } = this.#options;
    const lease = this.#lease;
    if (!lease) return;
    // MicroTime: the API server refuses a Lease time without six fractional digits.
    const renewTime = new V1MicroTime();
    this.#pending.set(renewTime.getTime(), performance.now());
    const body: V1Lease = { ...lease, spec: { ...lease.spec, holderIdentity: name, renewTime } };
    try {
      this.#lease = await this.#api.replaceNamespacedLease({ name, namespace, body });
    } catch (error) {
      // Someone else changed it (or deleted it): read it afresh at the next beat.
      this.#lease = undefined;
      throw error;
    }
  }

  #fail(error: unknown): void {
    const message = describeKubeError(error);
    // Once per kind of error (its HTTP status) until it works again: the API server's messages carry
    // times and names that change at every beat, and two steps may fail in turn.
    const kind = statusOf(error) === undefined ? message : `HTTP ${statusOf(error)}`;
    if (!this.#logged.has(kind)) {
      this.#logged.add(kind);
      const hint = statusOf(error) === 403 ? ' (topogate needs get, create, update, watch on leases there)' : '';
      this.#log.warn(
        `watch latency not measured: the heartbeat Lease ${this.#options.namespace}/${this.#options.name} failed: ${message}${hint}`,
      );
    }
    this.#error = message;
  }
}

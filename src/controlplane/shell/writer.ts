// Writes ControlPlane/default's status from one serve replica at a time (the
// holder of the Lease `topogate-controlplane`, by the shared elector of
// src/kube-client/lease.ts): at most once per interval, and
// only when a figure changed or the last write is a minute old, so the API
// writes stay O(1) whatever the cluster's size. The object is made when
// missing (src/kube-client/status-writer.ts); a CRD not installed is said once
// and looked for again each interval.

import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Readiness } from '../../ports/readiness.ts';
import { describeKubeError, statusOf } from '../../kube-client/errors.ts';
import { elect, type LeaderElection } from '../../kube-client/lease.ts';
import { StatusWriter as ClusterStatusWriter } from '../../kube-client/status-writer.ts';
import { CONTROL_PLANE, CONTROL_PLANE_NAME, type StoredControlPlaneStatus } from '../../api/v1alpha1/controlplane.ts';

export interface WriterOptions {
  readonly config: KubeConfig;
  readonly namespace: string;
  readonly identity: string;
  readonly intervalMs: number;
  /** What the CRD stores; the collector's ControlPlaneStatus is one. */
  readonly status: () => StoredControlPlaneStatus;
  readonly log: Logger;
}

const RESOURCE = { ...CONTROL_PLANE, name: CONTROL_PLANE_NAME };
const REFRESH_MS = 60_000;

export class StatusWriter {
  readonly #options: WriterOptions;
  readonly #writer: ClusterStatusWriter;
  readonly #election: LeaderElection;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #written = '';
  #writtenAt = 0;
  #error: string | undefined;

  constructor(options: WriterOptions) {
    this.#options = options;
    this.#writer = new ClusterStatusWriter(options.config, RESOURCE);
    this.#log = options.log.child({ component: 'controlplane-writer' });
    this.#election = elect({
      config: options.config,
      namespace: options.namespace,
      name: 'topogate-controlplane',
      identity: options.identity,
      log: this.#log,
      // Three missed renewals before another replica takes over.
      leaseDurationMs: Math.max(15_000, 3 * options.intervalMs),
      retryMs: options.intervalMs,
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    });
  }

  start(): void {
    void this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#election.stop();
  }

  readiness(): Readiness {
    return this.#error === undefined
      ? { ready: true }
      : { ready: true, reason: `ControlPlane not written: ${this.#error}` };
  }

  async #loop(): Promise<void> {
    try {
      if (this.#election.isLeader()) await this.#write();
      if (this.#error !== undefined) this.#log.info('ControlPlane/default is written again');
      this.#error = undefined;
    } catch (error) {
      this.#fail(error);
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#loop(), this.#options.intervalMs);
    this.#timer.unref();
  }

  async #write(): Promise<void> {
    const status = this.#options.status();
    const { observedAt: _, ...figures } = status;
    const key = JSON.stringify(figures);
    if (key === this.#written && Date.now() - this.#writtenAt < REFRESH_MS) return;
    await this.#writer.write(() => status);
    this.#written = key;
    this.#writtenAt = Date.now();
  }

  #fail(error: unknown): void {
    const message = describeKubeError(error);
    if (message !== this.#error) {
      const hint =
        statusOf(error) === 404
          ? ' (is the ControlPlane CRD installed? manifests/crds/controlplanes.yaml)'
          : statusOf(error) === 403
            ? ' (topogate needs leases in its namespace and controlplanes, controlplanes/status)'
            : '';
      this.#log.warn(`ControlPlane/default not written: ${message}${hint}`);
    }
    this.#error = message;
  }
}

// Scrapes the control plane on a bounded schedule: one round at a time, every
// source in parallel with its own timeout, the next round an interval after the
// last ended. Each source keeps its scrapes over the window, its last answer's
// time and its error; a failing source is logged once (when its error changes)
// and tried again next round, never sooner.

import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { TopologySnapshot } from '../../topology/model.ts';
import type { Readiness } from '../../ports/readiness.ts';
import { describeKubeError, statusOf } from '../../kube-client/errors.ts';
import { etcdMetricsUrl } from '../../topology/etcd/metrics-url.ts';
import { readApiServerMetrics, type ApiServerScrape } from '../apiserver.ts';
import { assembleStatus, type LeaseHolders } from '../assemble.ts';
import { readEtcdScrape, type EtcdScrape } from '../etcd.ts';
import type { FindingLimits } from '../findings.ts';
import { Heartbeat } from './heartbeat.ts';
import type { PodOwner } from './identity.ts';
import { readSchedulerMetrics, SCHEDULER_MARKER, type SchedulerScrape } from '../scheduler.ts';
import { kubeCredentials, scrapeLines } from './scrape.ts';
import type { ControlPlaneStatus } from '../../ports/controlplane.ts';
import { ScrapeWindow } from '../window.ts';

export interface CollectorTiming {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** The span p99s and counts are taken over. */
  readonly windowMs: number;
  readonly heartbeatMs: number;
}

export const DEFAULT_COLLECTOR_TIMING: CollectorTiming = {
  intervalMs: 15_000,
  timeoutMs: 5_000,
  windowMs: 300_000,
  heartbeatMs: 5_000,
};

export interface CollectorOptions {
  readonly config: KubeConfig;
  readonly topology: () => TopologySnapshot;
  readonly etcdMetrics: readonly string[];
  readonly schedulerMetrics?: string;
  /** Read schedulerMetrics without verifying the scheduler's certificate (kubeadm's is self-signed). */
  readonly schedulerSkipTlsVerify?: boolean;
  /** The MutatingWebhookConfiguration's webhook whose fail-opens and latency the API server reports. */
  readonly webhookName: string;
  /** Where topogate's heartbeat Lease lives. */
  readonly namespace: string;
  /** This process: the heartbeat Lease is named after it. */
  readonly identity: string;
  /** The Pod this process runs in, which owns the heartbeat Lease. */
  readonly owner?: PodOwner;
  readonly timing: CollectorTiming;
  readonly limits?: FindingLimits;
  readonly log: Logger;
}

const API_SERVER_FAMILIES = ['apiserver_request_duration_seconds_bucket', 'apiserver_admission_webhook_'];
const ETCD_FAMILIES = [
  'etcd_server_id',
  'etcd_server_is_leader',
  'etcd_server_has_leader',
  'etcd_network_peer_round_trip_time_seconds_sum',
  'etcd_network_peer_round_trip_time_seconds_count',
  'etcd_disk_wal_fsync_duration_seconds_bucket',
  'etcd_disk_backend_commit_duration_seconds_bucket',
];

/** How a scrape treats the server's certificate; the hint is added to a verification failure's message. */
interface CertificateCheck {
  readonly verify: boolean;
  readonly unverifiedHint?: string;
}

/** Node's codes for a certificate that does not verify against the CA given (scrapeLines rejects with the code). */
const UNVERIFIED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const SCHEDULER_CERTIFICATE_HINT =
  "the scheduler's certificate is not signed by the kubeconfig's CA, as kubeadm's self-signed one is not: " +
  'give kube-scheduler a certificate from the cluster CA (--tls-cert-file), or --scheduler-insecure-skip-tls-verify';

const SCHEDULER_FAMILIES = [
  SCHEDULER_MARKER,
  'scheduler_scheduling_attempt_duration_seconds_bucket',
  'scheduler_framework_extension_point_duration_seconds_bucket{extension_point="Bind"',
];

export class ControlPlaneCollector {
  readonly #options: CollectorOptions;
  readonly #log: Logger;
  readonly #leases: CoordinationV1Api;
  readonly #heartbeat: Heartbeat;
  readonly #apiServer: ScrapeWindow<ApiServerScrape>;
  readonly #etcd: Map<string, ScrapeWindow<EtcdScrape>>;
  readonly #scheduler: ScrapeWindow<SchedulerScrape> | undefined;
  readonly #holders: ScrapeWindow<LeaseHolders>;
  readonly #errors = new Map<string, { source: string; message: string }>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: CollectorOptions) {
    this.#options = options;
    this.#log = options.log.child({ component: 'controlplane' });
    this.#leases = options.config.makeApiClient(CoordinationV1Api);
    const { windowMs, heartbeatMs } = options.timing;
    this.#heartbeat = new Heartbeat(options.config, {
      namespace: options.namespace,
      name: `topogate-heartbeat-${options.identity}`,
      intervalMs: heartbeatMs,
      windowMs,
      log: this.#log,
      ...(options.owner && { owner: options.owner }),
    });
    this.#apiServer = new ScrapeWindow(windowMs);
    this.#etcd = new Map(
      options.etcdMetrics.map((url) => [etcdMetricsUrl(url), new ScrapeWindow<EtcdScrape>(windowMs)]),
    );
    this.#scheduler = options.schedulerMetrics === undefined ? undefined : new ScrapeWindow(windowMs);
    this.#holders = new ScrapeWindow(windowMs);
  }

  start(): void {
    this.#heartbeat.start();
    void this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#heartbeat.stop();
  }

  /** One measurement (`topogate controlplane`): a round, the heartbeat through the window, a round. */
  async measure(windowMs: number): Promise<ControlPlaneStatus> {
    this.#heartbeat.start();
    await this.round();
    await sleep(windowMs);
    await this.round();
    return this.status();
  }

  /** Scrapes every source once (each bounded by the timeout). */
  async round(): Promise<void> {
    await Promise.all([
      this.#scrapeApiServer(),
      ...[...this.#etcd].map(([url, window]) => this.#scrapeEtcd(url, window)),
      this.#scrapeScheduler(),
      this.#readLeases(),
    ]);
  }

  status(now = Date.now()): ControlPlaneStatus {
    return assembleStatus(
      {
        now,
        windowMs: this.#options.timing.windowMs,
        webhookName: this.#options.webhookName,
        apiServer: this.#apiServer.view(),
        etcd: new Map([...this.#etcd].map(([url, window]) => [url, window.view()])),
        ...(this.#scheduler && { scheduler: this.#scheduler.view() }),
        leases: this.#holders.view(),
        watch: this.#heartbeat.samples(now),
        ...(this.#options.limits && { limits: this.#options.limits }),
      },
      this.#options.topology(),
    );
  }

  /** Always ready (the webhook does not need these figures); says what cannot be measured. */
  readiness(): Readiness {
    const problems = [...this.#errors.values()].map(({ source, message }) => `${source}: ${message}`);
    const watch = this.#heartbeat.samples().error;
    if (watch !== undefined) problems.push(`watch heartbeat: ${watch}`);
    return problems.length === 0 ? { ready: true } : { ready: true, reason: `not measured: ${problems.join('; ')}` };
  }

  async #loop(): Promise<void> {
    await this.round();
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#loop(), this.#options.timing.intervalMs);
    this.#timer.unref();
  }

  async #scrapeApiServer(): Promise<void> {
    const server = this.#options.config.getCurrentCluster()?.server ?? '';
    const url = `${server.replace(/\/$/, '')}/metrics`;
    await this.#scrape('API server metrics', url, API_SERVER_FAMILIES, this.#apiServer, (text) =>
      readApiServerMetrics(text, this.#options.webhookName),
    );
  }

  async #scrapeEtcd(url: string, window: ScrapeWindow<EtcdScrape>): Promise<void> {
    await this.#scrape('etcd metrics', url, ETCD_FAMILIES, window, readEtcdScrape);
  }

  async #scrapeScheduler(): Promise<void> {
    const url = this.#options.schedulerMetrics;
    if (url === undefined || !this.#scheduler) return;
    await this.#scrape('scheduler metrics', url, SCHEDULER_FAMILIES, this.#scheduler, readSchedulerMetrics, {
      verify: this.#options.schedulerSkipTlsVerify !== true,
      unverifiedHint: SCHEDULER_CERTIFICATE_HINT,
    });
  }

  async #scrape<T>(
    source: string,
    url: string,
    prefixes: readonly string[],
    window: ScrapeWindow<T>,
    read: (text: string) => T | undefined,
    certificate: CertificateCheck = { verify: true },
  ): Promise<void> {
    try {
      const credentials = url.startsWith('https:') ? await kubeCredentials(this.#options.config) : undefined;
      const tls = credentials && (certificate.verify ? credentials : { ...credentials, rejectUnauthorized: false });
      const text = await scrapeLines(url, { prefixes, timeoutMs: this.#options.timing.timeoutMs, ...(tls && { tls }) });
      const value = read(text);
      if (value === undefined) throw new Error(`${url} does not serve the expected metrics`);
      window.add(Date.now(), value);
      this.#recovered(`${source} ${url}`, source);
    } catch (error) {
      const reason = (error as Error).message;
      const hint =
        certificate.unverifiedHint && UNVERIFIED_CERTIFICATE.has(reason) ? ` (${certificate.unverifiedHint})` : '';
      const message = `${url}: ${reason}${hint}`;
      window.fail(message);
      this.#failed(`${source} ${url}`, source, message);
    }
  }

  async #readLeases(): Promise<void> {
    const holder = async (name: string) => {
      try {
        const lease = await this.#leases.readNamespacedLease({ name, namespace: 'kube-system' });
        return lease.spec?.holderIdentity || undefined;
      } catch (error) {
        // No Lease: that component does not run with leader election (or not at all).
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    };
    try {
      const [scheduler, controllerManager] = await Promise.all([
        holder('kube-scheduler'),
        holder('kube-controller-manager'),
      ]);
      this.#holders.add(Date.now(), {
        ...(scheduler && { scheduler }),
        ...(controllerManager && { controllerManager }),
      });
      this.#recovered('leader Leases', 'leader Leases');
    } catch (error) {
      const message = describeKubeError(error);
      this.#holders.fail(message);
      this.#failed(
        'leader Leases',
        'leader Leases',
        `${message}${statusOf(error) === 403 ? ' (topogate needs get on leases in kube-system)' : ''}`,
      );
    }
  }

  /** Logged when a source's error changes; `key` tells the etcd members apart. */
  #failed(key: string, source: string, message: string): void {
    if (this.#errors.get(key)?.message !== message) this.#log.warn(`control plane: ${source} not measured: ${message}`);
    this.#errors.set(key, { source, message });
  }

  #recovered(key: string, source: string): void {
    if (this.#errors.delete(key)) this.#log.info(`control plane: ${source} answer again`);
  }
}

// The probe rounds: plan (rotation), probe the targets in parallel on kept
// connections, feed each zone's window, adapt the interval. Peers whose last
// DOWN_AFTER probes all failed are down: their samples leave the windows and
// they count as loss until they answer again.

import type { Logger } from 'pino';
import { type IntervalBounds, nextInterval } from '../interval.ts';
import { PeerRtts } from '../peer-rtts.ts';
import type { Peer } from '../peers.ts';
import { planRound } from '../rotation.ts';
import type { AgentSummary } from '../summary.ts';
import { type Sample, ZoneWindow } from '../window.ts';
import { PeerConnection } from './connection.ts';
import { DEFAULT_LISTENER_LIMITS } from './listener.ts';
import type { ProbeMetrics } from './metrics.ts';

const DOWN_AFTER = 3;
/** Kept connections at most; the least recently used closes first. */
const MAX_CONNECTIONS = 128;
/** A kept connection unused this long is closed: half the listener's idle deadline, so the prober closes first. */
const CONNECTION_IDLE_MS = DEFAULT_LISTENER_LIMITS.probeIdleMs / 2;

export interface ProberOptions {
  /** The address probes are sent from; undefined lets the kernel choose (listening on 0.0.0.0). */
  readonly localAddress: string | undefined;
  readonly bounds: IntervalBounds;
  /** Peers per round (every zone gets one even beyond it). */
  readonly budget: number;
  readonly timeoutMs: number;
  /** The current peers and this node's zone, read afresh each round. */
  readonly view: () => { readonly peers: readonly Peer[]; readonly zone: string | undefined };
  readonly node: string;
  /** A summary names the peers sampled within this: two write periods, so each gather sees each sample twice. */
  readonly reportPeersWithinMs: number;
  readonly metrics: ProbeMetrics;
  readonly log: Logger;
}

export class Prober {
  readonly #options: ProberOptions;
  readonly #windows = new Map<string, ZoneWindow>();
  readonly #connections = new Map<string, { readonly connection: PeerConnection; readonly usedAt: number }>();
  readonly #failures = new Map<string, number>();
  readonly #peerRtts = new PeerRtts();
  #cursors: ReadonlyMap<string, number> = new Map();
  #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #zone: string | undefined;
  #known = new Map<string, Peer>();

  constructor(options: ProberOptions) {
    this.#options = options;
    this.#intervalMs = options.bounds.baseMs;
  }

  get intervalMs(): number {
    return this.#intervalMs;
  }

  start(): void {
    void this.#loop();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const { connection } of this.#connections.values()) connection.close();
    this.#connections.clear();
  }

  /** What this agent publishes for the Lease holder; undefined until its own zone is known. */
  summary(): AgentSummary | undefined {
    if (!this.#zone) return undefined;
    const now = Date.now();
    const zones = [...this.#windows]
      .map(([zone, window]) => {
        window.trim(now);
        return { zone, buckets: window.buckets() };
      })
      .filter((z) => z.buckets.size > 0);
    const peers = this.#peerRtts.recent(now, this.#options.reportPeersWithinMs);
    return { node: this.#options.node, zone: this.#zone, zones, peers };
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      const started = performance.now();
      try {
        await this.#round();
      } catch (error) {
        this.#options.log.error({ err: error }, 'probe round failed');
      }
      const wait = Math.max(0, this.#intervalMs - (performance.now() - started));
      await new Promise<void>((resolve) => (this.#timer = setTimeout(resolve, wait)));
    }
  }

  async #round(): Promise<void> {
    const { view, budget, timeoutMs, metrics, bounds } = this.#options;
    const { peers, zone } = view();
    this.#zone = zone;
    this.#forgetGone(peers);
    const plan = planRound(peers, this.#cursors, budget);
    this.#cursors = plan.cursors;
    // Spread over the first half of the interval, never sent at once: a burst of probes queues behind itself
    // (in this process, in the peers', on the path), and the last answers of a burst read that queue as RTT.
    const spacingMs = this.#intervalMs / (2 * plan.targets.length);
    const answered = await Promise.all(
      plan.targets.map(async (peer, i) => {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, i * spacingMs));
        // Stopped meanwhile: no new connection that nothing would close.
        return this.#stopped ? undefined : { peer, result: await this.#connection(peer).probe(timeoutMs) };
      }),
    );
    if (this.#stopped) return;
    const results = answered.filter((entry) => entry !== undefined);

    const byZone = new Map<string, Sample[]>();
    const at = Date.now();
    for (const { peer, result } of results) {
      const samples = byZone.get(peer.zone) ?? [];
      byZone.set(peer.zone, samples);
      if ('rttMs' in result) {
        this.#failures.delete(peer.name);
        samples.push({ peer: peer.name, ms: result.rttMs, at });
        this.#peerRtts.add(peer.node, result.rttMs, at);
        metrics.rtt.observe({ zone: peer.zone }, result.rttMs / 1000);
      } else {
        metrics.lost.inc({ zone: peer.zone });
        const failures = (this.#failures.get(peer.name) ?? 0) + 1;
        this.#failures.set(peer.name, failures);
        if (failures === DOWN_AFTER) {
          this.#windows.get(peer.zone)?.drop(peer.name);
          this.#options.log.warn({ peer: peer.name, node: peer.node, zone: peer.zone }, `peer down: ${result.lost}`);
        }
      }
    }
    let changing = false;
    for (const [peerZone, samples] of byZone) {
      let window = this.#windows.get(peerZone);
      if (!window) this.#windows.set(peerZone, (window = new ZoneWindow()));
      if (window.addRound(samples, at)) changing = true;
    }
    this.#intervalMs = nextInterval(this.#intervalMs, changing, bounds);
    this.#observe(peers);
    this.#closeIdle();
  }

  #connection(peer: Peer): PeerConnection {
    const key = `${peer.ip}:${peer.port}`;
    const connection =
      this.#connections.get(key)?.connection ?? new PeerConnection(peer.ip, peer.port, this.#options.localAddress);
    this.#connections.delete(key);
    this.#connections.set(key, { connection, usedAt: performance.now() });
    return connection;
  }

  #forgetGone(peers: readonly Peer[]): void {
    const current = new Map(peers.map((peer) => [peer.name, peer]));
    for (const [name, peer] of this.#known) {
      if (current.get(name)?.ip === peer.ip) continue;
      this.#windows.get(peer.zone)?.drop(name);
      this.#failures.delete(name);
      this.#connections.get(`${peer.ip}:${peer.port}`)?.connection.close();
      this.#connections.delete(`${peer.ip}:${peer.port}`);
    }
    this.#known = current;
    this.#peerRtts.retain(new Set(peers.map((peer) => peer.node)));
  }

  /** Beyond MAX_CONNECTIONS, or unused for CONNECTION_IDLE_MS, close the least recently used (the Map keeps use order). */
  #closeIdle(): void {
    const idleSince = performance.now() - CONNECTION_IDLE_MS;
    for (const [key, { connection, usedAt }] of this.#connections) {
      if (this.#connections.size <= MAX_CONNECTIONS && usedAt >= idleSince) break;
      connection.close();
      this.#connections.delete(key);
    }
  }

  #observe(peers: readonly Peer[]): void {
    const { metrics } = this.#options;
    metrics.peers.reset();
    metrics.downPeers.reset();
    for (const peer of peers) {
      metrics.peers.inc({ zone: peer.zone });
      if ((this.#failures.get(peer.name) ?? 0) >= DOWN_AFTER) metrics.downPeers.inc({ zone: peer.zone });
    }
    metrics.interval.set(this.#intervalMs / 1000);
  }
}

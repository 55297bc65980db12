// The Lease holder's loop: every periodMs, gather every agent's summary (its
// own in-process, the others' by GET /summary, a bounded number at a time),
// aggregate, and write the status when the write policy says so. A new
// holder writes its first gather at once: it cannot know what its
// predecessor last wrote was still true.

import type { Logger } from 'pino';
import { aggregate } from '../aggregate.ts';
import { type NodePairRtt, type PairLimits, PairStore } from '../pairs.ts';
import type { Peer } from '../peers.ts';
import { type AgentSummary, acceptSummary, parseSummary } from '../summary.ts';
import { type DerivedStatus, derivedStatus } from '../tiers.ts';
import { type WritePolicy, type Written, writeReason } from '../write-policy.ts';
import { getBounded } from './http-get.ts';
import type { ProbeMetrics } from './metrics.ts';
import type { StatusWriter } from './status-writer.ts';

/** Summaries fetched in parallel at most: 1,000 agents take ~32 sequential batches. */
const CONCURRENCY = 32;
/** An honest summary is a few KB (zones' histograms and at most 256 peers); a longer body is cut here. */
export const MAX_SUMMARY_BYTES = 256 * 1024;
/** Levels are derived again at most this often: ~0.6 s of CPU at 1,000 nodes, and moves slowly. */
export const DERIVE_PERIOD_MS = 60_000;

export interface WriterOptions {
  readonly policy: WritePolicy;
  readonly gatherTimeoutMs: number;
  readonly own: () => AgentSummary | undefined;
  readonly peers: () => readonly Peer[];
  readonly status: StatusWriter;
  readonly metrics: ProbeMetrics;
  readonly log: Logger;
  /** Extra summaries from other tools' metrics (adapters), gathered beside the agents'. */
  readonly extra?: () => Promise<readonly AgentSummary[]>;
  /** A gather stops asking further agents after this (the slow ones are left out of it); default 30 s. */
  readonly gatherDeadlineMs?: number;
  readonly pairLimits?: PairLimits;
  /** Node → its zone label, for the mislabeled-node finding; without it no node is called mislabeled. */
  readonly zones?: () => ReadonlyMap<string, string>;
}

export class Writer {
  readonly #options: WriterOptions;
  #last: Written | undefined;
  #timer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;
  /** Bumped at every change of role, so that a loop from an earlier term ends. */
  #term = 0;
  #running = false;
  readonly #pairs: PairStore;
  #derived: { at: number; status: DerivedStatus | undefined } | undefined;

  constructor(options: WriterOptions) {
    this.#options = options;
    this.#pairs = new PairStore(options.pairLimits);
  }

  /** The node pairs measured lately, as the last gathers reported them (see src/probe/pairs.ts). */
  pairs(): readonly NodePairRtt[] {
    return this.#pairs.pairs(Date.now());
  }

  lead(): void {
    if (this.#running) return;
    this.#running = true;
    this.#last = undefined;
    void this.#loop(++this.#term);
  }

  follow(): void {
    this.#running = false;
    this.#term += 1;
    clearTimeout(this.#timer);
    this.#wake?.();
  }

  async #loop(term: number): Promise<void> {
    while (term === this.#term) {
      try {
        await this.#once(term);
      } catch (error) {
        this.#options.log.warn({ err: error }, 'NetworkTopology status write failed');
      }
      if (term !== this.#term) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.#timer = setTimeout(resolve, this.#options.policy.minPeriodMs);
      });
    }
  }

  async #once(term: number): Promise<void> {
    const { own, policy, status, metrics, log, extra } = this.#options;
    const peers = this.#options.peers();
    const summaries = [...(await this.#gather(peers)), ...((await extra?.()) ?? [])];
    const mine = own();
    if (mine) summaries.push(mine);
    const now = Date.now();
    this.#keepPairs(summaries, peers, now);
    const next = aggregate(summaries);
    const reason = writeReason(this.#last, next, now, policy);
    if (!reason || term !== this.#term) return;
    await status.write(next, new Date(now), this.#derive(now));
    this.#last = { status: next, at: now };
    metrics.writes.inc({ reason });
    log.info(
      { reason, links: next.links.length, degraded: next.degradedNodes.length, agents: summaries.length },
      'wrote NetworkTopology status',
    );
  }

  /** The levels from the pairs held, derived again once DERIVE_PERIOD_MS has passed since the last time. */
  #derive(now: number): DerivedStatus | undefined {
    if (this.#derived && now - this.#derived.at < DERIVE_PERIOD_MS) return this.#derived.status;
    let status: DerivedStatus | undefined;
    try {
      status = derivedStatus(this.#pairs.pairs(now), this.#options.zones?.() ?? new Map());
    } catch (error) {
      this.#options.log.warn({ err: error }, 'deriving levels from node pairs failed');
    }
    this.#derived = { at: now, status };
    return status;
  }

  /** Adds the summaries' node pairs, and drops the pairs of nodes no longer in the fleet. */
  #keepPairs(summaries: readonly AgentSummary[], peers: readonly Peer[], now: number): void {
    const nodes = new Set(summaries.map((summary) => summary.node));
    for (const peer of peers) nodes.add(peer.node);
    for (const summary of summaries)
      for (const peer of summary.peers ?? []) this.#pairs.report(summary.node, peer.node, peer.rttMs, now);
    this.#pairs.prune(now, nodes);
  }

  async #gather(peers: readonly Peer[]): Promise<AgentSummary[]> {
    const mine = this.#options.own();
    const known = {
      zones: new Set([...peers.map((peer) => peer.zone), ...(mine ? [mine.zone] : [])]),
      nodes: new Set([...peers.map((peer) => peer.node), ...(mine ? [mine.node] : [])]),
    };
    const deadline = performance.now() + (this.#options.gatherDeadlineMs ?? 30_000);
    const out: AgentSummary[] = [];
    let next = 0;
    const worker = async () => {
      while (next < peers.length && performance.now() < deadline) {
        const summary = await this.#fetch(peers[next++]!, known);
        if (summary) out.push(summary);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, peers.length) }, worker));
    if (next < peers.length) {
      this.#options.metrics.gatherFailures.inc(peers.length - next);
      this.#options.log.warn(
        { left: peers.length - next },
        'gather deadline passed: the agents not asked yet are left out',
      );
    }
    return out;
  }

  async #fetch(peer: Peer, known: Parameters<typeof acceptSummary>[2]): Promise<AgentSummary | undefined> {
    try {
      const { status, body } = await getBounded(
        peer.ip,
        peer.port,
        '/summary',
        this.#options.gatherTimeoutMs,
        MAX_SUMMARY_BYTES,
      );
      if (status === 503) return undefined;
      if (status !== 200) throw new Error(`HTTP ${status}`);
      const parsed = parseSummary(JSON.parse(body));
      if (typeof parsed === 'string') throw new Error(parsed);
      const summary = acceptSummary(parsed, peer, known);
      if (typeof summary === 'string') throw new Error(summary);
      return summary;
    } catch (error) {
      this.#options.metrics.gatherFailures.inc();
      this.#options.log.debug({ peer: peer.name }, `summary not read: ${(error as Error).message}`);
      return undefined;
    }
  }
}

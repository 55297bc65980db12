// The Lease holder's loop: every periodMs, gather every agent's summary (its
// own in-process, the others' by GET /summary, a bounded number at a time),
// aggregate, and write the status when the write policy says so. A new
// holder writes its first gather at once: it cannot know what its
// predecessor last wrote was still true.

import type { Logger } from 'pino';
import { aggregate } from '../aggregate.ts';
import type { Peer } from '../peers.ts';
import { type AgentSummary, parseSummary } from '../summary.ts';
import { type WritePolicy, type Written, writeReason } from '../write-policy.ts';
import type { ProbeMetrics } from './metrics.ts';
import type { StatusWriter } from './status-writer.ts';

/** Summaries fetched in parallel at most: 1,000 agents take ~32 sequential batches. */
const CONCURRENCY = 32;

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
}

export class Writer {
  readonly #options: WriterOptions;
  #last: Written | undefined;
  #timer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;
  /** Bumped at every change of role, so that a loop from an earlier term ends. */
  #term = 0;
  #running = false;

  constructor(options: WriterOptions) {
    this.#options = options;
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
    const summaries = [...(await this.#gather()), ...((await extra?.()) ?? [])];
    const mine = own();
    if (mine) summaries.push(mine);
    const next = aggregate(summaries);
    const now = Date.now();
    const reason = writeReason(this.#last, next, now, policy);
    if (!reason || term !== this.#term) return;
    await status.write(next, new Date(now));
    this.#last = { status: next, at: now };
    metrics.writes.inc({ reason });
    log.info(
      { reason, links: next.links.length, degraded: next.degradedNodes.length, agents: summaries.length },
      'wrote NetworkTopology status',
    );
  }

  async #gather(): Promise<AgentSummary[]> {
    const peers = this.#options.peers();
    const out: AgentSummary[] = [];
    let next = 0;
    const worker = async () => {
      while (next < peers.length) {
        const summary = await this.#fetch(peers[next++]!);
        if (summary) out.push(summary);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, peers.length) }, worker));
    return out;
  }

  async #fetch(peer: Peer): Promise<AgentSummary | undefined> {
    try {
      const response = await fetch(`http://${hostPort(peer)}/summary`, {
        signal: AbortSignal.timeout(this.#options.gatherTimeoutMs),
      });
      if (response.status === 503) return undefined;
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const summary = parseSummary(await response.json());
      if (typeof summary === 'string') throw new Error(summary);
      return summary;
    } catch (error) {
      this.#options.metrics.gatherFailures.inc();
      this.#options.log.debug({ peer: peer.name }, `summary not read: ${(error as Error).message}`);
      return undefined;
    }
  }
}

function hostPort(peer: Peer): string {
  return peer.ip.includes(':') ? `[${peer.ip}]:${peer.port}` : `${peer.ip}:${peer.port}`;
}

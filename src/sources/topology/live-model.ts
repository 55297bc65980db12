// The shell around the pure builder: sources feed it, it publishes at most
// one snapshot per turn of the event loop (a relist of 5,000 Nodes is one
// snapshot, not 5,000), and tells subscribers.

import type { Logger } from 'pino';
import type { KubeObject } from '../../kube/types.ts';
import { TopologyBuilder, type WatchEventType } from '../../topology/builder.ts';
import type { PendingUsage } from '../../topology/read/pod-usage.ts';
import type { Occupancy, SourceName, TopologySnapshot } from '../../topology/model.ts';
import type { TopologyMetrics } from './metrics.ts';
import type { ListSink } from './watch.ts';

export class LiveModel {
  readonly #builder: TopologyBuilder;
  readonly #metrics: TopologyMetrics;
  readonly #log: Logger;
  readonly #listeners = new Set<(snapshot: TopologySnapshot) => void>();
  /** Arrival times (performance.now) of the events waiting for the next publish. */
  #pending: number[] = [];
  #scheduled = false;
  #current: TopologySnapshot;
  /** Ends the assumptions whose Pods never arrived, at the oldest one's expiry. */
  #expiry: NodeJS.Timeout | undefined;

  constructor(sources: readonly SourceName[], metrics: TopologyMetrics, log: Logger) {
    // Every object watched carries the resourceVersion its last write gave it.
    this.#builder = new TopologyBuilder({ sources, digestOf: 'version' });
    this.#metrics = metrics;
    this.#log = log;
    this.#current = this.#builder.publish();
    metrics.observe(this.#current);
  }

  get current(): TopologySnapshot {
    return this.#current;
  }

  /** The bound Pods as of now, frozen on demand: binds between two decisions cost one freeze, and no snapshot. */
  occupancy(): Occupancy {
    return this.#builder.occupancy();
  }

  apply(source: SourceName, type: WatchEventType, object: KubeObject): void {
    const now = Date.now();
    this.#builder.apply(source, type, object, now);
    this.#metrics.events.inc({ source });
    this.#metrics.eventSeen(source, now);
    this.#schedule(performance.now());
  }

  /** An object's next state before its watch event (TopologyProvider.expect): taken as one, but not counted. */
  expect(source: SourceName, object: KubeObject): void {
    this.#builder.apply(source, 'MODIFIED', object);
    this.#schedule();
  }

  /** A Pod admitted held as `usage`, counted until its watch event brings it (topology/assumed.ts). */
  assume(usage: PendingUsage): void {
    this.#builder.assume(usage, Date.now());
    this.#armExpiry();
  }

  /** Stops the expiry timer: nothing else of the model runs on its own. */
  stop(): void {
    clearTimeout(this.#expiry);
    this.#expiry = undefined;
  }

  /** A whole list at once (the etcd scraper's): what is not in it is gone. */
  replace(source: SourceName, objects: readonly KubeObject[]): void {
    const listing = this.startList(source);
    listing.page(objects);
    listing.end();
  }

  /**
   * A list of `source` begins: each page is applied as it is parsed, in its own turn of the event loop, and published
   * with the next snapshot (none is made per page: each would be compiled); the end publishes the whole list.
   */
  startList(source: SourceName): ListSink {
    const listing = this.#builder.startList(source);
    return {
      page: (objects) => {
        const now = Date.now();
        this.#builder.listPage(listing, objects, now);
        this.#metrics.eventSeen(source, now);
      },
      end: () => {
        const now = Date.now();
        this.#builder.endList(listing, now);
        this.#metrics.eventSeen(source, now);
        this.#schedule(performance.now());
      },
    };
  }

  disable(source: SourceName, reason: string): void {
    this.#builder.disable(source, reason, Date.now());
    this.#schedule();
  }

  fail(source: SourceName, error: string): void {
    this.#builder.fail(source, error, Date.now());
    this.#schedule();
  }

  /** Marks the sources in contact current now (see TopologyBuilder.refresh). */
  refresh(): void {
    this.#builder.refresh(Date.now());
    this.#schedule();
  }

  subscribe(listener: (snapshot: TopologySnapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #armExpiry(): void {
    if (this.#expiry !== undefined) return;
    const next = this.#builder.expireAssumed(Date.now());
    if (next === undefined) return;
    this.#expiry = setTimeout(
      () => {
        this.#expiry = undefined;
        this.#armExpiry();
      },
      Math.max(0, next - Date.now()),
    );
    this.#expiry.unref();
  }

  #schedule(arrival?: number): void {
    if (arrival !== undefined && this.#pending.length < 10_000) this.#pending.push(arrival);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#publish());
  }

  #publish(): void {
    this.#scheduled = false;
    const pending = this.#pending;
    this.#pending = [];
    if (!this.#builder.changed) return;
    this.#current = this.#builder.publish();
    const done = performance.now();
    for (const arrival of pending) this.#metrics.eventToSnapshot.observe((done - arrival) / 1000);
    this.#metrics.observe(this.#current);
    for (const listener of this.#listeners) {
      try {
        listener(this.#current);
      } catch (error) {
        this.#log.error({ err: error }, 'topology subscriber failed');
      }
    }
  }
}

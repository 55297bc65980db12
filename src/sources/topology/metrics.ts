// The topology sources' metrics, on the registry the shell passes in.

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { SourceName, TopologySnapshot } from '../../topology/model.ts';

export interface TopologyMetrics {
  readonly objects: Gauge<'source'>;
  readonly synced: Gauge<'source'>;
  readonly events: Counter<'source'>;
  readonly relists: Counter<'source'>;
  readonly eventToSnapshot: Histogram;
  /** Records when a source last applied an event, for the last-event-age gauge. */
  eventSeen(source: SourceName, at: number): void;
  /** Sets the per-source gauges from a published snapshot. */
  observe(snapshot: TopologySnapshot): void;
}

export function createTopologyMetrics(registry: Registry, clock: () => number = Date.now): TopologyMetrics {
  const registers = [registry];
  const lastEvent = new Map<SourceName, number>();
  const objects = new Gauge({
    name: 'topogate_topology_source_objects',
    help: 'Objects each topology source holds.',
    labelNames: ['source'],
    registers,
  });
  const synced = new Gauge({
    name: 'topogate_topology_source_synced',
    help: '1 once a topology source has applied its first full list.',
    labelNames: ['source'],
    registers,
  });
  const events = new Counter({
    name: 'topogate_topology_source_events_total',
    help: 'Watch events (and etcd scrapes) applied, by source.',
    labelNames: ['source'],
    registers,
  });
  const relists = new Counter({
    name: 'topogate_topology_source_relists_total',
    help: 'Full lists after the first (410 Gone, lost connections), by source.',
    labelNames: ['source'],
    registers,
  });
  new Gauge({
    name: 'topogate_topology_source_last_event_age_seconds',
    help: 'Seconds since a topology source last applied an event or list.',
    labelNames: ['source'],
    registers,
    collect() {
      const now = clock();
      for (const [source, at] of lastEvent) this.set({ source }, (now - at) / 1000);
    },
  });
  const eventToSnapshot = new Histogram({
    name: 'topogate_topology_event_to_snapshot_seconds',
    help: 'From a watch event arriving to the published snapshot that includes it.',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers,
  });
  return {
    objects,
    synced,
    events,
    relists,
    eventToSnapshot,
    eventSeen: (source, at) => void lastEvent.set(source, at),
    observe(snapshot) {
      for (const status of snapshot.sources.values()) {
        objects.set({ source: status.name }, status.objects);
        synced.set({ source: status.name }, status.synced ? 1 : 0);
      }
    },
  };
}

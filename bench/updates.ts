// Child process of the topology-update benchmark: a model of 5,000 Nodes,
// 5,000 NodeResourceTopology objects and 50,000 endpoints built by the
// incremental builder from its initial lists, then watch events applied one
// by one, each followed by the snapshot that includes it.
//   node --expose-gc bench/updates.ts '{"nodes":5000,"endpoints":50000,"events":2000}'

import type { KubeObject } from '../src/kube/types.ts';
import { TopologyBuilder } from '../src/topology/builder.ts';
import { sourcesOf, TOPOLOGY_SOURCES } from '../src/topology/kinds.ts';
import type { SourceName } from '../src/topology/model.ts';
import {
  boundPod,
  cluster,
  endpointSlice,
  ENDPOINTS_PER_SLICE,
  node,
  nodeName,
  nodeResourceTopology,
  random,
} from './cluster.ts';
import { collectGarbage } from './gc.ts';
import { percentiles, type Percentiles } from './stats.ts';

export interface UpdateJob {
  readonly nodes: number;
  readonly endpoints: number;
  /** Events of each kind. */
  readonly events: number;
}

export interface EventKindResult {
  readonly kind: string;
  readonly events: number;
  /** builder.apply alone, µs. */
  readonly applyUs: Percentiles;
  /** apply then publish: from the event to the snapshot that includes it, µs. */
  readonly toSnapshotUs: Percentiles;
  /** Events applied per second with a snapshot after each. */
  readonly eventsPerSecond: number;
}

export interface UpdateReport {
  readonly nodes: number;
  readonly nrt: number;
  readonly endpoints: number;
  readonly objects: number;
  readonly firstSnapshotMs: number;
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  readonly heapModelBytes: number;
  readonly kinds: readonly EventKindResult[];
}

const NOW = Date.parse('2026-12-01T10:00:00Z');

function relabelled(index: number, generation: number, rand: () => number): KubeObject {
  const object = node(index, rand);
  const metadata = object.metadata!;
  metadata.labels = {
    ...metadata.labels,
    disk: generation % 2 === 0 ? 'nvme' : 'ebs',
    'example.com/rollout': `wave-${generation}`,
  };
  return object;
}

function cordoned(index: number, generation: number, rand: () => number): KubeObject {
  const object = node(index, rand);
  (object.spec as Record<string, unknown>).unschedulable = generation % 2 === 0;
  return object;
}

function measure(job: UpdateJob): UpdateReport {
  const objects = cluster({ nodes: job.nodes, endpoints: job.endpoints }, NOW);
  const bySource = new Map<SourceName, KubeObject[]>(TOPOLOGY_SOURCES.map((name) => [name, []]));
  for (const object of objects) {
    for (const source of sourcesOf(object)) bySource.get(source)!.push(object);
  }
  collectGarbage();
  const rssBeforeBytes = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  const builder = new TopologyBuilder({ sources: TOPOLOGY_SOURCES });
  const start = process.hrtime.bigint();
  for (const [source, list] of bySource) builder.replace(source, list, NOW);
  let snapshot = builder.publish();
  const firstSnapshotMs = Number(process.hrtime.bigint() - start) / 1e6;
  collectGarbage();
  const heapModelBytes = process.memoryUsage().heapUsed - heapBefore;
  const rssAfterBytes = process.memoryUsage().rss;

  const rand = random(7);
  const slices = Math.ceil(job.endpoints / ENDPOINTS_PER_SLICE);
  // A bind changes the occupancy, not the snapshot (builder.occupancy()): its event is read up to that.
  const kinds: { kind: string; source: SourceName; make: (i: number) => KubeObject; read?: () => unknown }[] = [
    { kind: 'Node relabelled', source: 'nodes', make: (i) => relabelled((i * 37) % job.nodes, i, rand) },
    { kind: 'Node cordoned / uncordoned', source: 'nodes', make: (i) => cordoned((i * 53) % job.nodes, i, rand) },
    {
      kind: 'NodeResourceTopology changed',
      source: 'nodeResourceTopologies',
      make: (i) => nodeResourceTopology((i * 41) % job.nodes, rand),
    },
    {
      kind: 'EndpointSlice changed',
      source: 'endpointSlices',
      make: (i) => endpointSlice((i * 17) % slices, job.nodes, i + 1),
    },
    {
      kind: 'Pod bound: one Deployment scaling up, a node each (to the occupancy)',
      source: 'pods',
      make: (i) => boundPod(`trainer-${i}`, nodeName(i % job.nodes), 'trainer', '1'),
      read: () => builder.occupancy(),
    },
  ];
  // A watch event always carries a newer resourceVersion than the list it follows.
  let resourceVersion = 10_000_000;
  const results = kinds.map(({ kind, source, make, read = () => (snapshot = builder.publish()) }): EventKindResult => {
    const events = Array.from({ length: job.events }, (_, i) => {
      const object = make(i);
      object.metadata!.resourceVersion = String(++resourceVersion);
      return object;
    });
    const apply = new Float64Array(job.events);
    const toSnapshot = new Float64Array(job.events);
    let total = 0n;
    for (let i = 0; i < events.length; i++) {
      const begin = process.hrtime.bigint();
      builder.apply(source, 'MODIFIED', events[i]!, NOW + i);
      const applied = process.hrtime.bigint();
      read();
      const published = process.hrtime.bigint();
      apply[i] = Number(applied - begin) / 1000;
      toSnapshot[i] = Number(published - begin) / 1000;
      total += published - begin;
    }
    return {
      kind,
      events: job.events,
      applyUs: percentiles(apply),
      toSnapshotUs: percentiles(toSnapshot),
      eventsPerSecond: job.events / (Number(total) / 1e9),
    };
  });
  if (snapshot.nodes.count !== job.nodes)
    throw new Error(`the model lost nodes: ${snapshot.nodes.count} of ${job.nodes}`);
  return {
    nodes: bySource.get('nodes')!.length,
    nrt: bySource.get('nodeResourceTopologies')!.length,
    endpoints: slices * ENDPOINTS_PER_SLICE,
    objects: objects.length,
    firstSnapshotMs,
    rssBeforeBytes,
    rssAfterBytes,
    heapModelBytes,
    kinds: results,
  };
}

if (import.meta.main) {
  const job = JSON.parse(process.argv[2] ?? '{}') as UpdateJob;
  process.send?.(measure(job), () => process.disconnect?.());
}

// Writes the recorded list/watch stream of a large cluster, one JSON-lines file
// per resource as its API server sends it: the List, page by page (each page a
// List with metadata.continue, PAGE_ITEMS items), then watch events, one a
// line. Canary events (a GPU node's product renamed and back, which a policy's
// decision shows) go to <name>.canary.jsonl; churn (Pods created, bound,
// started and deleted, Node and NodeResourceTopology status) follows the List.
// Made at run time: the 65,000-node stream is over a gigabyte.
//   node bench/large/generate.ts DIR NODES

import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../src/kube/types.ts';
import {
  CONTROL_PLANE_NODES,
  controlPlane,
  endpointSlice,
  ENDPOINTS_PER_SLICE,
  namespaces,
  networkTopology,
  random,
} from '../cluster.ts';
import { policies } from '../workload.ts';
import { canaryNode, canaryPolicy, gpuSlice, largeNode, largeNrt, largePod } from './objects.ts';
import { PAGE_ITEMS, RESOURCES, type RecordedResource } from './resources.ts';

export interface StreamShape {
  readonly nodes: number;
  readonly pods: number;
  readonly policies: number;
  /** Canary events (on, off, on, …). */
  readonly canaryEvents: number;
  /** Churn events after each List, for the watch cost: Pods (four per Pod replaced), Nodes, NRT objects. */
  readonly churn: { readonly pods: number; readonly nodes: number; readonly nrt: number };
}

/** The largest clusters' shape: 65,000 nodes and 500,000 Pods, 500 policies; smaller ones keep the ratios. */
export function shapeOf(nodes: number): StreamShape {
  return {
    nodes,
    pods: Math.round((nodes * 500_000) / 65_000),
    policies: 500,
    canaryEvents: 400,
    churn: { pods: 12_000, nodes: 2_000, nrt: 1_000 },
  };
}

/** The List's resourceVersion; events count on from it. */
export const LIST_RESOURCE_VERSION = 10_000_000;
/** The node the canary events rename: the first GPU node (bench/cluster.ts: index % 7 === 5). */
export const CANARY_NODE = 5;
const NRT_SHARE = 10;

class LineWriter {
  readonly #fd: number;
  #buffer = '';
  bytes = 0;

  constructor(file: string) {
    this.#fd = openSync(file, 'w');
  }

  write(text: string): void {
    this.#buffer += text;
    if (this.#buffer.length > 1 << 20) this.flush();
  }

  flush(): void {
    this.bytes += writeSync(this.#fd, this.#buffer);
    this.#buffer = '';
  }

  close(): void {
    this.flush();
    closeSync(this.#fd);
  }
}

function* range<T>(count: number, make: (index: number) => T): Generator<T> {
  for (let i = 0; i < count; i++) yield make(i);
}

function writeList(out: LineWriter, resource: RecordedResource, items: Iterable<KubeObject>): number {
  let page: string[] = [];
  let pages = 0;
  let count = 0;
  const flushPage = (last: boolean) => {
    const metadata = { resourceVersion: String(LIST_RESOURCE_VERSION), ...(last ? {} : { continue: `${++pages}` }) };
    out.write(
      `{"kind":"${resource.listKind}","apiVersion":"${resource.apiVersion}","metadata":${JSON.stringify(metadata)},"items":[${page.join(',')}]}\n`,
    );
    page = [];
  };
  for (const item of items) {
    page.push(JSON.stringify(item));
    count++;
    if (page.length === PAGE_ITEMS) flushPage(false);
  }
  flushPage(true);
  return count;
}

function event(type: string, object: KubeObject): string {
  return `{"type":"${type}","object":${JSON.stringify(object)}}\n`;
}

export function generate(dir: string, shape: StreamShape): Record<string, { objects: number; bytes: number }> {
  mkdirSync(dir, { recursive: true });
  let resourceVersion = LIST_RESOURCE_VERSION;
  const rand = random(shape.nodes);
  const nodeAt = (index: number) => largeNode(index, random(index + 1));
  const nrtNodes = Math.ceil(shape.nodes / NRT_SHARE);
  // bench/cluster.ts: one node in seven has GPUs, never a control-plane node.
  const gpuNodes = [...range(shape.nodes, (i) => i)].filter((i) => i >= CONTROL_PLANE_NODES && i % 7 === 5);
  const etcd = controlPlane();
  const items: Record<string, () => Iterable<KubeObject>> = {
    nodes: () => range(shape.nodes, nodeAt),
    namespaces: () => [
      ...namespaces(),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'canary', labels: {} } },
    ],
    endpointslices: () =>
      range(Math.ceil(Math.max(2_000, shape.nodes) / ENDPOINTS_PER_SLICE), (i) => endpointSlice(i, shape.nodes)),
    'control-plane-pods': () => etcd.filter((object) => object.kind === 'Pod'),
    pods: () =>
      range(shape.pods, (i) =>
        largePod(i, shape.nodes, LIST_RESOURCE_VERSION - 1, i % 200 === 7 ? 'Pending' : 'Running'),
      ),
    resourceslices: () => gpuNodes.map(gpuSlice),
    noderesourcetopologies: () => range(nrtNodes, (i) => largeNrt(i * NRT_SHARE, rand)),
    networktopologies: () => [networkTopology(Date.now())],
    etcdclusters: () => etcd.filter((object) => object.kind === 'EtcdCluster'),
    schedulingpolicies: () => [...policies(shape.policies - 1), canaryPolicy()],
  };
  const churn: Record<string, () => Iterable<string>> = {
    nodes: function* () {
      for (let i = 0; i < shape.churn.nodes; i++) {
        const object = nodeAt((i * 7919) % shape.nodes);
        yield event('MODIFIED', {
          ...object,
          metadata: { ...object.metadata!, resourceVersion: `${++resourceVersion}` },
        });
      }
    },
    pods: function* () {
      for (let i = 0; i < shape.churn.pods / 4; i++) {
        const fresh = shape.pods + i;
        const pending = largePod(fresh, shape.nodes, ++resourceVersion, 'Pending');
        yield event('ADDED', pending);
        const bound = largePod(fresh, shape.nodes, ++resourceVersion);
        bound.status = { phase: 'Pending', qosClass: 'Burstable' };
        yield event('MODIFIED', bound);
        yield event('MODIFIED', largePod(fresh, shape.nodes, ++resourceVersion));
        yield event('DELETED', largePod(i, shape.nodes, ++resourceVersion));
      }
    },
    noderesourcetopologies: function* () {
      for (let i = 0; i < shape.churn.nrt; i++) {
        const object = largeNrt(((i * 31) % nrtNodes) * NRT_SHARE, rand);
        yield event('MODIFIED', {
          ...object,
          metadata: { ...object.metadata!, resourceVersion: `${++resourceVersion}` },
        });
      }
    },
  };
  const written: Record<string, { objects: number; bytes: number }> = {};
  for (const resource of RESOURCES) {
    const out = new LineWriter(join(dir, `${resource.name}.jsonl`));
    const objects = writeList(out, resource, items[resource.name]!());
    for (const line of churn[resource.name]?.() ?? []) out.write(line);
    out.close();
    written[resource.name] = { objects, bytes: out.bytes };
  }
  const canary = new LineWriter(join(dir, 'nodes.canary.jsonl'));
  const base = nodeAt(CANARY_NODE);
  for (let i = 0; i < shape.canaryEvents; i++)
    canary.write(event('MODIFIED', canaryNode(base, i % 2 === 0, ++resourceVersion)));
  canary.close();
  return written;
}

if (import.meta.main) {
  const [dir, nodes] = process.argv.slice(2);
  if (!dir || !nodes) throw new Error('usage: node bench/large/generate.ts DIR NODES');
  const started = performance.now();
  const written = generate(dir, shapeOf(Number(nodes)));
  process.stdout.write(`${JSON.stringify(written)}\n${Math.round(performance.now() - started)} ms\n`);
}

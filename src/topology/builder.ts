// The incremental topology model: watch events and relists go in, immutable
// snapshots come out. Each change costs about what it touches (one node's
// labels, one slice's service, one NRT's memo entries); `publish` freezes the
// changed parts and shares the rest with the previous snapshot.

import { LEGACY_ZONE_LABEL, ZONE_LABEL } from '../kube/labels.ts';
import type { KubeObject, Labels } from '../kube/types.ts';
import { CowMap } from './cow/map.ts';
import { ContentFingerprint, type DigestOf } from './fingerprint.ts';
import { objectKey } from './kinds.ts';
import type {
  ControlPlanePod,
  Device,
  EtcdMember,
  EtcdModel,
  NetworkModel,
  NodeResourceTopology,
  Occupancy,
  SourceName,
  SourceStatus,
  TopologySnapshot,
} from './model.ts';
import { createNetworkModel } from './network.ts';
import { NodeTable } from './nodes.ts';
import { NumaMemo } from './numa.ts';
import { isControlPlanePod, readControlPlanePod } from './read/control-plane.ts';
import { readEndpointSlice, type SliceFacts } from './read/endpoint-slice.ts';
import { readEtcdCluster } from './read/etcd-cluster.ts';
import { record, stringMap } from './read/fields.ts';
import { type NetworkFacts, readNetworkTopology } from './read/network-topology.ts';
import { readNode } from './read/node.ts';
import { readNodeResourceTopology } from './read/nrt.ts';
import { usageOf } from './read/pod-record.ts';
import type { PendingUsage } from './read/pod-usage.ts';
import { readResourceSlice, type ResourceSliceFacts } from './read/resource-slice.ts';
import { ASSUMED_TTL_MS } from './assumed.ts';
import { PodUsageTable } from './usage.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

// Several objects of a singular kind: the one named "default" wins, else the first by name.
const PREFERRED_NAME = 'default';

/** A list in progress (TopologyBuilder.startList): the keys its pages brought so far. */
export interface SourceListing {
  readonly source: SourceName;
  readonly listed: Set<string>;
  /** An object without a name came: the source's error says so after the list. */
  problem: boolean;
}

type MutableStatus = { -readonly [K in keyof SourceStatus]: SourceStatus[K] };

export interface BuilderOptions {
  /** The sources this model is built from; their status starts unsynced. */
  readonly sources: readonly SourceName[];
  /** The version of the first published snapshot (default 1). */
  readonly firstVersion?: number;
  /** What the snapshot id digests of each object (fingerprint.ts; default its content). */
  readonly digestOf?: DigestOf;
}

export class TopologyBuilder {
  #version: number;
  #dirty = true;
  #last: TopologySnapshot | undefined;

  readonly #versions = new Map<SourceName, Map<string, string | undefined>>();
  readonly #status = new Map<SourceName, MutableStatus>();
  /** Per source, the list in progress (startList). */
  readonly #listings = new Map<SourceName, SourceListing>();
  /** Of every object but Pods, which go to the occupancy, not the snapshot. */
  readonly #content: ContentFingerprint;

  readonly #nodes = new NodeTable();
  readonly #namespaces = new CowMap<Labels>();
  readonly #topologies = new CowMap<NodeResourceTopology>();
  readonly #numaChanged = new Set<string>();
  #numa: NumaMemo | undefined;

  readonly #slices = new Map<string, SliceFacts>();
  readonly #slicesOfService = new Map<string, Set<string>>();
  readonly #slicesOfNode = new Map<string, Set<string>>();
  readonly #servicesChanged = new Set<string>();
  readonly #services = new CowMap<ReadonlySet<string>>();

  readonly #controlPlanePods = new Map<string, ControlPlanePod>();
  #controlPlane: readonly ControlPlanePod[] | undefined;
  readonly #networks = new Map<string, NetworkFacts>();
  #network: NetworkModel | undefined | null;
  readonly #etcdClusters = new Map<string, readonly EtcdMember[]>();
  #etcd: EtcdModel | undefined;
  readonly #usage = new PodUsageTable();
  readonly #resourceSlices = new Map<string, ResourceSliceFacts>();
  readonly #resourceSlicesOfNode = new Map<string, Set<string>>();
  readonly #devices = new CowMap<readonly Device[]>();

  constructor(options: BuilderOptions) {
    this.#version = (options.firstVersion ?? 1) - 1;
    this.#content = new ContentFingerprint(options.digestOf);
    for (const name of options.sources) {
      this.#status.set(name, { name, synced: false, objects: 0 });
      this.#versions.set(name, new Map());
    }
  }

  /** One watch event. Objects of a source the builder was not given are ignored. */
  apply(source: SourceName, type: WatchEventType, object: KubeObject, now?: number): void {
    const status = this.#status.get(source);
    if (!status) return;
    if (now !== undefined) status.updatedAt = now;
    const key = objectKey(source, object);
    if (key === undefined) {
      this.#problem(status, `${object.kind ?? 'object'} without metadata.name ignored`);
      return;
    }
    const versions = this.#versions.get(source)!;
    if (type === 'DELETED' || (source === 'controlPlanePods' && !isControlPlanePod(object))) {
      if (versions.delete(key)) this.#remove(source, key);
      if (source !== 'pods') this.#content.set(`${source}/${key}`, undefined);
    } else {
      const resourceVersion = object.metadata?.resourceVersion;
      if (resourceVersion !== undefined && versions.get(key) === resourceVersion) return;
      versions.set(key, resourceVersion);
      this.#upsert(source, key, object);
      if (source !== 'pods') this.#content.set(`${source}/${key}`, object);
    }
    status.objects = versions.size;
  }

  /**
   * A full list of a source: what is not in it is gone. Marks the source synced and current.
   * Without `now` (files, which do not age) no updatedAt is recorded.
   */
  replace(source: SourceName, objects: readonly KubeObject[], now?: number): void {
    const listing = this.startList(source);
    this.listPage(listing, objects, now);
    this.endList(listing, now);
  }

  /**
   * A list of `source` begins (the first, or a relist): its pages go to listPage as they are parsed, so that no
   * whole list is held or applied in one turn, and endList removes what the list did not bring. A list begun later
   * supersedes this one: its pages and its end are then ignored, so an older list cannot undo a newer one.
   */
  startList(source: SourceName): SourceListing {
    const listing: SourceListing = { source, listed: new Set(), problem: false };
    this.#listings.set(source, listing);
    return listing;
  }

  /** Objects of a list begun by startList, applied as they come; the snapshot shows them at its next publish. */
  listPage(listing: SourceListing, objects: readonly KubeObject[], now?: number): void {
    if (this.#listings.get(listing.source) !== listing) return;
    for (const object of objects) {
      const key = objectKey(listing.source, object);
      if (key !== undefined) listing.listed.add(key);
      else listing.problem = true;
      this.apply(listing.source, 'ADDED', object, now);
    }
  }

  /** The list is whole: what it did not bring is gone; the source is synced and current. */
  endList(listing: SourceListing, now?: number): void {
    const { source, listed } = listing;
    const status = this.#status.get(source);
    if (!status || this.#listings.get(source) !== listing) return;
    this.#listings.delete(source);
    const versions = this.#versions.get(source)!;
    for (const key of versions.keys()) {
      if (!listed.has(key)) {
        versions.delete(key);
        this.#remove(source, key);
        if (source !== 'pods') this.#content.set(`${source}/${key}`, undefined);
      }
    }
    status.objects = versions.size;
    const hadError = status.error;
    if (!listing.problem) delete status.error;
    if (!status.synced || status.staleSince !== undefined || status.disabled !== undefined || hadError !== status.error)
      this.#dirty = true;
    status.synced = true;
    if (now !== undefined) status.updatedAt = now;
    delete status.staleSince;
    delete status.disabled;
  }

  /** The source's API is not there (a CRD not installed): it will stay empty. */
  disable(source: SourceName, reason: string, now: number): void {
    const status = this.#status.get(source);
    if (!status || status.disabled === reason) return;
    status.disabled = reason;
    status.updatedAt = now;
    this.#dirty = true;
  }

  /** The source lost contact (watch broken, scrape failing): its data is kept but ages from now on. */
  fail(source: SourceName, error: string, now: number): void {
    const status = this.#status.get(source);
    if (!status) return;
    // A list in progress failed with it: a relist begins anew.
    this.#listings.delete(source);
    if (status.staleSince === undefined || status.error !== error) this.#dirty = true;
    status.staleSince ??= now;
    status.error = error;
  }

  /**
   * The sources still in contact (synced, not stale, not disabled) are current as of `now`:
   * a quiet watch is not an old one. Publishes a snapshot saying so when there are any.
   */
  refresh(now: number): void {
    for (const status of this.#status.values()) {
      if (!status.synced || status.staleSince !== undefined || status.disabled !== undefined) continue;
      status.updatedAt = now;
      this.#dirty = true;
    }
  }

  /** Whether publish() would make a new snapshot. */
  get changed(): boolean {
    return this.#dirty;
  }

  /**
   * What the bound Pods take now: a new version after any bind, finish or delete since the last call, else the
   * same object. Kept apart from the snapshot so that a Deployment scaling up (a bind every few milliseconds)
   * recompiles nothing and leaves the memos of decisions that do not read it alone.
   */
  occupancy(): Occupancy {
    return this.#usage.freeze();
  }

  /** A Pod admitted at `now` held as `usage`, counted in the occupancy until its watch event (assumed.ts). */
  assume(usage: PendingUsage, now: number): void {
    this.#usage.assume(usage, now + ASSUMED_TTL_MS);
  }

  /** Stops counting the admitted Pods whose watch events never came; when the next one expires. */
  expireAssumed(now: number): number | undefined {
    return this.#usage.expireAssumed(now);
  }

  /** The current snapshot: a new one (with a larger version) when anything changed since the last. */
  publish(): TopologySnapshot {
    if (!this.#dirty && this.#last) return this.#last;
    const nodes = this.#nodes.freeze();
    const nodeTopologies = this.#topologies.freeze();
    // Every node added or removed is in #numaChanged, so a memo with no changes still has the right slots.
    this.#numa = new NumaMemo(nodeTopologies, nodes, this.#numa, new Set(this.#numaChanged));
    this.#numaChanged.clear();
    this.#version++;
    const snapshot: TopologySnapshot = {
      version: this.#version,
      content: this.#content.id,
      nodes,
      namespaces: this.#namespaces.freeze(),
      nodeTopologies,
      numa: this.#numa,
      services: this.#freezeServices(),
      controlPlane: (this.#controlPlane ??= sortedByName([...this.#controlPlanePods.values()])),
      ...this.#networkPart(),
      etcd: (this.#etcd ??= etcdModel(preferred(this.#etcdClusters) ?? [])),
      pods: this.occupancy(),
      devices: this.#devices.freeze(),
      sources: new Map([...this.#status].map(([name, status]) => [name, Object.freeze({ ...status })])),
    };
    this.#last = Object.freeze(snapshot);
    this.#dirty = false;
    return this.#last;
  }

  #problem(status: MutableStatus, message: string): void {
    status.error = message;
    this.#dirty = true;
  }

  #upsert(source: SourceName, key: string, object: KubeObject): void {
    switch (source) {
      case 'nodes':
        return this.#upsertNode(key, object);
      case 'namespaces':
        this.#namespaces.set(key, stringMap(record(object.metadata).labels));
        break;
      case 'nodeResourceTopologies':
        this.#topologies.set(key, readNodeResourceTopology(key, object));
        this.#numaChanged.add(key);
        break;
      case 'endpointSlices':
        this.#removeSlice(key);
        this.#addSlice(key, readEndpointSlice(object));
        break;
      case 'controlPlanePods':
        this.#controlPlanePods.set(key, readControlPlanePod(object.metadata?.name ?? key, object));
        this.#controlPlane = undefined;
        break;
      case 'networkTopologies':
        this.#networks.set(key, readNetworkTopology(key, object));
        this.#network = undefined;
        break;
      case 'etcd':
        this.#etcdClusters.set(key, readEtcdCluster(object));
        this.#etcd = undefined;
        break;
      case 'pods':
        // A bind or a finish changes the occupancy (see occupancy()), never the snapshot.
        this.#usage.set(key, usageOf(object));
        return;
      case 'resourceSlices':
        this.#setResourceSlice(key, readResourceSlice(object));
        break;
    }
    this.#dirty = true;
  }

  #remove(source: SourceName, key: string): void {
    switch (source) {
      case 'nodes':
        if (!this.#nodes.remove(key)) return;
        this.#numaChanged.add(key);
        this.#zoneChanged(key);
        break;
      case 'namespaces':
        this.#namespaces.delete(key);
        break;
      case 'nodeResourceTopologies':
        this.#topologies.delete(key);
        this.#numaChanged.add(key);
        break;
      case 'endpointSlices':
        this.#removeSlice(key);
        break;
      case 'controlPlanePods':
        this.#controlPlanePods.delete(key);
        this.#controlPlane = undefined;
        break;
      case 'networkTopologies':
        this.#networks.delete(key);
        this.#network = undefined;
        break;
      case 'etcd':
        this.#etcdClusters.delete(key);
        this.#etcd = undefined;
        break;
      case 'pods':
        this.#usage.set(key, undefined);
        return;
      case 'resourceSlices':
        this.#setResourceSlice(key, undefined);
        break;
    }
    this.#dirty = true;
  }

  #upsertNode(name: string, object: KubeObject): void {
    const after = readNode(name, object);
    const before = this.#nodes.upsert(after);
    if (before === undefined) return;
    // A new node takes a slot NUMA answers speak of; labels, taints and the like do not change them.
    if (!before) this.#numaChanged.add(name);
    if (!before || zoneOf(before.labels) !== zoneOf(after.labels)) this.#zoneChanged(name);
    this.#dirty = true;
  }

  /** A node appeared, went, or changed zone: the zones of the Services with endpoints on it change. */
  #zoneChanged(name: string): void {
    for (const slice of this.#slicesOfNode.get(name) ?? []) {
      const service = this.#slices.get(slice)?.service;
      if (service) this.#servicesChanged.add(service);
    }
  }

  #addSlice(key: string, facts: SliceFacts): void {
    if (!facts.service) return;
    this.#slices.set(key, facts);
    addTo(this.#slicesOfService, facts.service, key);
    for (const node of facts.nodes) addTo(this.#slicesOfNode, node, key);
    this.#servicesChanged.add(facts.service);
  }

  #removeSlice(key: string): void {
    const facts = this.#slices.get(key);
    if (!facts?.service) return;
    this.#slices.delete(key);
    removeFrom(this.#slicesOfService, facts.service, key);
    for (const node of facts.nodes) removeFrom(this.#slicesOfNode, node, key);
    this.#servicesChanged.add(facts.service);
  }

  /** One slice changed or went: the devices of the nodes it spoke of are gathered again from their slices. */
  #setResourceSlice(key: string, facts: ResourceSliceFacts | undefined): void {
    const before = this.#resourceSlices.get(key);
    if (before?.node) removeFrom(this.#resourceSlicesOfNode, before.node, key);
    if (facts) this.#resourceSlices.set(key, facts);
    else this.#resourceSlices.delete(key);
    if (facts?.node) addTo(this.#resourceSlicesOfNode, facts.node, key);
    for (const node of new Set([before?.node, facts?.node])) {
      if (node === undefined) continue;
      const devices = [...(this.#resourceSlicesOfNode.get(node) ?? [])]
        .sort()
        .flatMap((slice) => this.#resourceSlices.get(slice)?.devices ?? []);
      if (devices.length > 0) this.#devices.set(node, devices);
      else this.#devices.delete(node);
    }
  }

  #freezeServices(): ReadonlyMap<string, ReadonlySet<string>> {
    for (const service of this.#servicesChanged) {
      const slices = this.#slicesOfService.get(service);
      if (!slices) {
        this.#services.delete(service);
        continue;
      }
      const zones = new Set<string>();
      for (const slice of slices) {
        const facts = this.#slices.get(slice);
        for (const zone of facts?.zones ?? []) zones.add(zone);
        for (const node of facts?.nodes ?? []) {
          const zone = zoneOf(this.#nodes.get(node)?.labels ?? {});
          if (zone) zones.add(zone);
        }
      }
      this.#services.set(service, zones);
    }
    this.#servicesChanged.clear();
    return this.#services.freeze();
  }

  #networkPart(): { network?: NetworkModel } {
    if (this.#network === undefined) {
      const facts = preferred(this.#networks);
      this.#network = facts ? createNetworkModel(facts) : null;
    }
    return this.#network ? { network: this.#network } : {};
  }
}

function zoneOf(labels: Labels): string | undefined {
  return labels[ZONE_LABEL] ?? labels[LEGACY_ZONE_LABEL];
}

function preferred<T>(objects: ReadonlyMap<string, T>): T | undefined {
  const byDefault = objects.get(PREFERRED_NAME);
  if (byDefault !== undefined) return byDefault;
  let first: string | undefined;
  for (const key of objects.keys()) if (first === undefined || key < first) first = key;
  return first === undefined ? undefined : objects.get(first);
}

/** The leader is the one member that says so; two claimants (mid-election) make it unknown. */
function etcdModel(members: readonly EtcdMember[]): EtcdModel {
  const leaders = members.filter((m) => m.isLeader);
  return leaders.length === 1 ? { members, leader: leaders[0]! } : { members };
}

function sortedByName<T extends { readonly name: string }>(items: T[]): readonly T[] {
  return items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function addTo(index: Map<string, Set<string>>, key: string, value: string): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom(index: Map<string, Set<string>>, key: string, value: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) index.delete(key);
}

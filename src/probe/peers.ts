// Peers from the probe DaemonSet's Pods (as goldpinger finds its peers):
// Running, with status.podIP, on another node; port from the container port
// named `probe`; zone from the Node's zone label. Pods come from the API
// server and are read once here into typed, frozen facts.

import { isRecord } from '../kube/json.ts';
import { list, record, string } from '../topology/read/fields.ts';

export const DEFAULT_PROBE_PORT = 9471;
export const PROBE_PORT_NAME = 'probe';

export interface ProbePod {
  readonly name: string;
  readonly node: string;
  readonly ip: string;
  readonly port: number;
}

export interface Peer extends ProbePod {
  readonly zone: string;
}

/** The probe endpoint of a Running, addressed, scheduled Pod; undefined for any other. */
export function readProbePod(pod: unknown): ProbePod | undefined {
  if (!isRecord(pod)) return undefined;
  const name = string(record(pod.metadata).name);
  const spec = record(pod.spec);
  const status = record(pod.status);
  const node = string(spec.nodeName);
  const ip = string(status.podIP);
  if (!name || !node || !ip || status.phase !== 'Running') return undefined;
  return Object.freeze({ name, node, ip, port: probePort(spec) });
}

function probePort(spec: Record<string, unknown>): number {
  for (const container of list(spec.containers)) {
    for (const port of list(record(container).ports)) {
      if (!isRecord(port) || port.name !== PROBE_PORT_NAME) continue;
      const number = port.containerPort;
      if (typeof number === 'number' && Number.isInteger(number) && number > 0 && number < 65536) return number;
    }
  }
  return DEFAULT_PROBE_PORT;
}

/**
 * The peers of `self`, sorted by zone then node: Pods on other nodes whose
 * node has a zone. A node not yet seen or without the label cannot be placed
 * in a zone pair, so it is left out until it is.
 */
export function peersOf(
  pods: Iterable<ProbePod>,
  zoneOf: (node: string) => string | undefined,
  self: string,
): readonly Peer[] {
  const peers: Peer[] = [];
  for (const pod of pods) {
    if (pod.node === self) continue;
    const zone = zoneOf(pod.node);
    if (zone) peers.push(Object.freeze({ ...pod, zone }));
  }
  return peers.sort((a, b) => compare(a.zone, b.zone) || compare(a.node, b.node) || compare(a.name, b.name));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

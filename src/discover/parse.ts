// The boundary: untrusted JSON (the --rtt file) and Node objects (the --nodes file) become typed facts,
// or a clear error naming the first problems. Bounded: a fleet larger than MAX_NODES is refused before
// any matrix is made (memory grows with the square of the node count).

import type { NodeZone, RttPair } from './types.ts';
import { ZONE_LABEL } from '../kube/labels.ts';

export const MAX_NODES = 5000;
/** A round trip longer than a minute is not a measurement. */
const MAX_RTT_MS = 60_000;
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SHOWN = 5;

export class DiscoverInputError extends Error {
  override name = 'DiscoverInputError';
}

const describe = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value) : String(value));

function nodeNameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a node name (a string), not ${describe(value)}`;
  if (value.length === 0 || value.length > 253 || !NODE_NAME.test(value))
    return `must be a node name (lowercase DNS subdomain, at most 253 characters), not ${describe(value.slice(0, 300))}`;
  return undefined;
}

/** `{"pairs": [{"a", "b", "rttMs"}, …]}` → pairs. */
export function parseRttPairs(document: unknown): RttPair[] {
  if (typeof document !== 'object' || document === null || !Array.isArray((document as { pairs?: unknown }).pairs))
    throw new DiscoverInputError('expected a JSON object {"pairs": [{"a": NODE, "b": NODE, "rttMs": NUMBER}, …]}');
  const given = (document as { pairs: unknown[] }).pairs;
  const problems: string[] = [];
  const pairs: RttPair[] = [];
  const nodes = new Set<string>();
  for (let index = 0; index < given.length && problems.length < SHOWN; index++) {
    const item = given[index];
    const at = `pairs[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push(`${at}: must be an object {"a", "b", "rttMs"}, not ${describe(item)}`);
      continue;
    }
    const { a, b, rttMs } = item as Record<string, unknown>;
    const problem =
      (nodeNameProblem(a) && `${at}.a: ${nodeNameProblem(a)}`) ||
      (nodeNameProblem(b) && `${at}.b: ${nodeNameProblem(b)}`) ||
      (a === b && `${at}: a node paired with itself (${describe(a)})`) ||
      (!(typeof rttMs === 'number' && rttMs > 0 && rttMs <= MAX_RTT_MS) &&
        `${at}.rttMs: must be a number of milliseconds in (0, ${MAX_RTT_MS}], not ${describe(rttMs)}`);
    if (problem) {
      problems.push(problem);
      continue;
    }
    nodes.add(a as string).add(b as string);
    if (nodes.size > MAX_NODES)
      throw new DiscoverInputError(`more than ${MAX_NODES} nodes (the most discover takes) by ${at}`);
    pairs.push({ a: a as string, b: b as string, rttMs: rttMs as number });
  }
  if (problems.length > 0) throw new DiscoverInputError(problems.join('\n'));
  if (pairs.length === 0) throw new DiscoverInputError('no pairs: "pairs" is empty');
  return pairs;
}

/** A NodeList, a List of Nodes, or Node documents → each node's zone label. */
export function parseNodeZones(documents: readonly unknown[]): NodeZone[] {
  const nodes: NodeZone[] = [];
  const problems: string[] = [];
  const visit = (object: unknown, at: string) => {
    if (typeof object !== 'object' || object === null || Array.isArray(object)) {
      problems.push(`${at}: not an object`);
      return;
    }
    const { kind, items, metadata } = object as { kind?: unknown; items?: unknown; metadata?: unknown };
    if (kind === 'NodeList' || kind === 'List') {
      if (!Array.isArray(items)) problems.push(`${at}.items: must be a list`);
      else items.forEach((item, index) => visit(item, `${at}.items[${index}]`));
      return;
    }
    if (kind !== 'Node') {
      problems.push(`${at}: kind ${describe(kind)} is not Node, NodeList or List`);
      return;
    }
    const { name, labels } = (typeof metadata === 'object' && metadata !== null ? metadata : {}) as {
      name?: unknown;
      labels?: unknown;
    };
    const nameProblem = nodeNameProblem(name);
    if (nameProblem) {
      problems.push(`${at}.metadata.name: ${nameProblem}`);
      return;
    }
    const zone =
      typeof labels === 'object' && labels !== null ? (labels as Record<string, unknown>)[ZONE_LABEL] : undefined;
    if (zone !== undefined && typeof zone !== 'string') {
      problems.push(`${at}.metadata.labels["${ZONE_LABEL}"]: must be a string, not ${describe(zone)}`);
      return;
    }
    nodes.push({ name: name as string, zone });
  };
  documents.forEach((document, index) => visit(document, documents.length > 1 ? `document ${index + 1}` : 'nodes'));
  if (problems.length > 0) throw new DiscoverInputError(problems.slice(0, SHOWN).join('\n'));
  if (nodes.length > MAX_NODES) throw new DiscoverInputError(`more than ${MAX_NODES} nodes`);
  return nodes;
}

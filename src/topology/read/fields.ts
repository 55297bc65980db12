// Reading untrusted JSON: every helper answers a well-typed value or nothing,
// so that a mistyped field in one object never breaks the model.

import { isRecord } from '../../kube/json.ts';
import { parseRepeatedQuantity } from '../../kube/quantity.ts';
import type { ResourceList } from '../model.ts';

export type Json = Record<string, unknown>;

export function record(value: unknown): Json {
  return isRecord(value) ? value : {};
}

export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function string(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The string-valued entries of a map (labels, annotations): the map itself when every value is a string, as in
 * every object the API server sends (copying 65,000 Nodes' labels was a tenth of applying their list).
 */
export function stringMap(value: unknown): Readonly<Record<string, string>> {
  const map = record(value);
  for (const key in map) if (typeof map[key] !== 'string') return onlyStrings(map);
  return map as Record<string, string>;
}

function onlyStrings(map: Json): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(map)) if (typeof item === 'string') out[key] = item;
  return out;
}

/** A map of quantities in milli-units; invalid quantities are left out. */
export function resourceList(value: unknown): ResourceList {
  const map = record(value);
  const out: Record<string, number> = {};
  for (const key in map) {
    const milli = parseRepeatedQuantity(map[key]);
    if (milli !== undefined) out[key] = milli;
  }
  return out;
}

/** Epoch ms of an RFC 3339 timestamp. */
export function timestamp(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

// Reading untrusted JSON: every helper answers a well-typed value or nothing,
// so that a mistyped field in one object never breaks the model.

import { isRecord } from '../../kube/json.ts';
import { parseQuantity } from '../../kube/quantity.ts';
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

/** The string-valued entries of a map (labels, annotations). */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(record(value))) if (typeof item === 'string') out[key] = item;
  return out;
}

/** A map of quantities in milli-units; invalid quantities are left out. */
export function resourceList(value: unknown): ResourceList {
  const out: Record<string, number> = {};
  for (const [key, item] of Object.entries(record(value))) {
    const milli = parseQuantity(item);
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

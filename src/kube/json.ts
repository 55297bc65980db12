// Narrowing for untrusted JSON: every field of an incoming object may be
// missing or of the wrong type.

/** A JSON object (not an array, not null), each field still to be checked where it is read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function recordsOf(value: unknown): readonly Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function arrayOf<T>(value: readonly T[] | undefined | null): readonly T[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Sets `key` on `target` as an own, plain member, as JSON.parse and Object.fromEntries do: assigning "__proto__"
 * would change the object's prototype instead.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

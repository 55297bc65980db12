// Which values live as long as a compiled policy set: the decisions its memo
// keeps, and what the admission path derives from one once (a patch with the
// warnings annotation, its encoding). Identity caches (WeakMaps) are filled
// for these only. V8's young-generation collector keeps every WeakMap entry
// whose key is young, so an entry for a one-off Pod's decision would carry
// the decision and the cached value into the old generation, where only a full
// collection frees them: about 9 KB a new Pod, measured (docs/benchmarks.md).

const kept = new WeakSet<object>();

/** Marks values that a long-lived owner (the decision memo, or a cache keyed on a kept value) holds. */
export function keep(...values: object[]): void {
  for (const value of values) kept.add(value);
}

/** Whether `value` is held for the life of a compiled policy set: worth an identity cache entry. */
export function isKept(value: object): boolean {
  return kept.has(value);
}

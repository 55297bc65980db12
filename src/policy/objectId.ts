// A number for an object, the same for as long as it lives: lets a memo key
// name the rules' outputs (kept and shared by every decision that adds them,
// jsonText.ts) by identity, in a few characters, rather than by their text.

const ids = new WeakMap<object, number>();
let last = 0;

export function objectId(value: object): number {
  let id = ids.get(value);
  if (id === undefined) ids.set(value, (id = ++last));
  return id;
}

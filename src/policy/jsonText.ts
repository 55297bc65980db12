// JSON text of the values rules output, each object's text kept while the
// object lives. Rule outputs are made once per compiled rule (or per input a
// rule memoises) and written into decision after decision: serialising each
// once and joining the texts gives the bytes JSON.stringify gives for the
// whole, at a fraction of the cost. Outputs are never changed once made
// (readonly by type), so a kept text stays true.

const texts = new WeakMap<object, string>();

export function jsonText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)));
  return text;
}

/** JSON.stringify(values), from each item's kept text. */
export function jsonList(values: readonly unknown[]): string {
  let text = '[';
  for (let i = 0; i < values.length; i++) text += (i === 0 ? '' : ',') + jsonText(values[i]);
  return `${text}]`;
}

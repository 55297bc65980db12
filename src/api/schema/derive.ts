// One schema node rewritten for a reader: a JSON Schema file for editors, or a CRD's structural
// schema for the API server. Both leave out, from `required`, the fields the loader defaults.

type Json = Readonly<Record<string, unknown>>;

/** A node of a published schema. */
export type JsonSchema = Json;

/** `schema` with `rewrite` applied to it and to every schema under it (properties, items, …). */
export function deriveSchema(schema: object, rewrite: (node: Json) => Json): Json {
  const node = rewrite(withoutDefaultedRequired(schema as Json));
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(node).sort(([a], [b]) => rank(a) - rank(b)))
    out[keyword] = deriveChild(keyword, value, rewrite);
  return out;
}

/** What a node is first, then its constraints, then what it holds: the order a reader wants. */
function rank(keyword: string): number {
  const order = ['description', 'type', 'required', 'properties', 'additionalProperties', 'items'];
  const at = order.indexOf(keyword);
  return at === -1 ? 2 : at < 2 ? at : at + 1;
}

function deriveChild(keyword: string, value: unknown, rewrite: (node: Json) => Json): unknown {
  const isSchema = (item: unknown): item is Json => typeof item === 'object' && item !== null && !Array.isArray(item);
  switch (keyword) {
    case 'properties':
      return Object.fromEntries(
        Object.entries(value as Json).map(([key, item]) => [key, deriveSchema(item as Json, rewrite)]),
      );
    case 'items':
    case 'additionalProperties':
    case 'propertyNames':
      return isSchema(value) ? deriveSchema(value, rewrite) : value;
    default:
      return value;
  }
}

function withoutDefaultedRequired(schema: Json): Json {
  const required = schema.required as readonly string[] | undefined;
  if (required === undefined || schema.type !== 'object') return schema;
  const properties = (schema.properties ?? {}) as Readonly<Record<string, Json>>;
  const { required: _, ...rest } = schema;
  const left = required.filter((key) => properties[key]?.default === undefined);
  return left.length > 0 ? { ...rest, required: left } : rest;
}

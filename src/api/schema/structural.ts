// A TypeBox schema as a CRD's structural schema (Kubernetes "structural schema" rules): a type on every
// node, no $ref, const or propertyNames, and no additionalProperties beside properties (the API server
// prunes unknown fields). What JSON Schema says with allOf, anyOf or if/then, the CRD says in the
// x-kubernetes-validations (CEL) the same nodes carry.

import { deriveSchema, type JsonSchema } from './derive.ts';

const jsonOnly = new Set(['$schema', 'title', 'propertyNames', 'allOf', 'anyOf', 'if', 'then']);

function structuralNode(node: JsonSchema): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (jsonOnly.has(keyword) || (keyword === 'additionalProperties' && value === false)) continue;
    if (keyword === 'const') out.enum = [value];
    else out[keyword] = value;
  }
  const values = out.enum as readonly unknown[] | undefined;
  if (out.type === undefined && values !== undefined) out.type = typeof values[0];
  return out;
}

export const structural = (schema: object): JsonSchema => deriveSchema(schema, structuralNode);

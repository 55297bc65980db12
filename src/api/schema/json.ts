// The published JSON Schemas (schema/*.schema.json), for editors: the TypeBox schemas as they are,
// without the CRD's x-kubernetes-* keywords.

import { deriveSchema, type JsonSchema } from './derive.ts';

export function jsonSchema(title: string, schema: object): JsonSchema {
  const body = deriveSchema(schema, (node) =>
    Object.fromEntries(Object.entries(node).filter(([keyword]) => !keyword.startsWith('x-kubernetes-'))),
  );
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title, ...body };
}

export const schemaText = (schema: JsonSchema): string => `${JSON.stringify(schema, null, 2)}\n`;

// The published JSON Schemas (schema/*.schema.json): the TypeBox schemas as they are, without the
// CRD's x-kubernetes-* keywords. `npm run generate` writes them; `npm run generate -- --check` fails
// when a committed file differs.

import { deriveSchema, type JsonSchema } from './derive.ts';
import { policyDocument } from './policy.ts';
import { testSuite } from './test-suite.ts';

function jsonSchema(title: string, schema: object): JsonSchema {
  const body = deriveSchema(schema, (node) =>
    Object.fromEntries(Object.entries(node).filter(([keyword]) => !keyword.startsWith('x-kubernetes-'))),
  );
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title, ...body };
}

/** File name under schema/ → its schema. */
export const publishedSchemas: Readonly<Record<string, () => JsonSchema>> = {
  'schedulingpolicy.schema.json': () => jsonSchema('SchedulingPolicy', policyDocument),
  'policytest.schema.json': () => jsonSchema('PolicyTest', testSuite),
};

export const schemaText = (schema: JsonSchema): string => `${JSON.stringify(schema, null, 2)}\n`;

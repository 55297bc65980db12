// The published JSON Schemas (schema/*.schema.json) are this module's output;
// a unit test keeps the files in step. Regenerate: npm run generate.

import type { JsonSchema, Schema } from './checks.ts';
import { policyDocument } from './policy.ts';
import { testSuite } from './test-suite.ts';

function jsonSchema(title: string, schema: Schema<unknown>): JsonSchema {
  const defs = new Map<string, JsonSchema>();
  const root = schema.json(defs);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title,
    ...root,
    ...(defs.size > 0 ? { $defs: Object.fromEntries([...defs].sort(([a], [b]) => a.localeCompare(b))) } : {}),
  };
}

/** File name under schema/ → its text. */
export const publishedSchemas: Readonly<Record<string, () => JsonSchema>> = {
  'schedulingpolicy.schema.json': () => jsonSchema('SchedulingPolicy', policyDocument),
  'policytest.schema.json': () => jsonSchema('PolicyTest', testSuite),
};

export const schemaText = (schema: JsonSchema): string => `${JSON.stringify(schema, null, 2)}\n`;

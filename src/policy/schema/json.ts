// schema/schedulingpolicy.schema.json is this module's output; a unit test
// keeps the file in step. Regenerate: npx node src/policy/schema/json.ts

import { writeFileSync } from 'node:fs';
import type { JsonSchema } from './checks.ts';
import { policyDocument } from './policy.ts';

export function policyJsonSchema(): JsonSchema {
  const defs = new Map<string, JsonSchema>();
  const root = policyDocument.json(defs);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'SchedulingPolicy',
    ...root,
    $defs: Object.fromEntries([...defs].sort(([a], [b]) => a.localeCompare(b))),
  };
}

export const policyJsonSchemaText = (): string => `${JSON.stringify(policyJsonSchema(), null, 2)}\n`;

if (import.meta.main) {
  writeFileSync(new URL('../../../schema/schedulingpolicy.schema.json', import.meta.url), policyJsonSchemaText());
}

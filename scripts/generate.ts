// `npm run generate`: writes the files generated from the policy schema. A unit test fails when they are stale.

import { writeFileSync } from 'node:fs';
import { publishedSchemas, schemaText } from '../src/policy/schema/json.ts';

for (const [name, schema] of Object.entries(publishedSchemas))
  writeFileSync(new URL(`../schema/${name}`, import.meta.url), schemaText(schema()));

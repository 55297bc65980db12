// `npm run generate`: writes the files generated from the policy schema. A unit test fails when they are stale.

import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { publishedSchemas, schemaText } from '../src/policy/schema/json.ts';

for (const [name, schema] of Object.entries(publishedSchemas))
  writeFileSync(new URL(`../schema/${name}`, import.meta.url), schemaText(schema()));

// Last, after anything that writes manifests/: the Helm chart ships these files as they are.
for (const file of [
  'rbac.yaml',
  'policy-writer-rbac.yaml',
  'controlplane-rbac.yaml',
  'probe-rbac.yaml',
  'probe-daemonset.yaml',
])
  copyFileSync(
    new URL(`../manifests/${file}`, import.meta.url),
    new URL(`../charts/topogate/files/manifests/${file}`, import.meta.url),
  );
for (const file of readdirSync(new URL('../manifests/crds/', import.meta.url)))
  copyFileSync(
    new URL(`../manifests/crds/${file}`, import.meta.url),
    new URL(`../charts/topogate/files/crds/${file}`, import.meta.url),
  );

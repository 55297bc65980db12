// What `npm run generate` writes, computed from the kinds of src/api/v1alpha1/ and the files it is
// given: the JSON Schemas under schema/, every topogate.dev CRD under manifests/crds/ (whole: names,
// printer columns and schema), and the Helm chart's copies of manifests/ (the optional PolicyReport CRD
// among them).

import { Document, isScalar, visit } from 'yaml';
import { customResourceDefinition, documentSchema, type KindDefinition } from '../src/api/crd.ts';
import { jsonSchema, schemaText } from '../src/api/schema/json.ts';
import type { JsonSchema } from '../src/api/schema/derive.ts';
import { kinds } from '../src/api/v1alpha1/kinds.ts';
import { testSuite } from '../src/policy/schema/test-suite.ts';

/** Not topogate's kind, so not in manifests/crds: installed only when asked (docs/rollout.md). */
const policyReportCrd = 'manifests/policyreport/policyreports.yaml';
const chartManifests = [
  'rbac.yaml',
  'policy-writer-rbac.yaml',
  'controlplane-rbac.yaml',
  'probe-rbac.yaml',
  'probe-daemonset.yaml',
];

/** File name under schema/ → its schema. */
export const publishedSchemas: Readonly<Record<string, () => JsonSchema>> = {
  ...Object.fromEntries(
    kinds.map((kind) => [
      `${kind.resource.kind.toLowerCase()}.schema.json`,
      () => jsonSchema(kind.resource.kind, documentSchema(kind)),
    ]),
  ),
  'policytest.schema.json': () => jsonSchema('PolicyTest', testSuite),
};

export const crdPath = (kind: KindDefinition): string => `manifests/crds/${kind.resource.plural}.yaml`;

function crdText(kind: KindDefinition): string {
  const document = new Document(customResourceDefinition(kind), { aliasDuplicateObjects: false });
  // Lists of plain values on one line ([spec], [In, NotIn]), as hand-written manifests have them.
  visit(document, { Seq: (_, list) => void (list.flow = list.items.every(isScalar)) });
  const source = `src/api/v1alpha1/${kind.resource.kind.toLowerCase()}.ts`;
  const header = `${kind.resource.kind}: ${kind.about}\nGenerated from ${source} by \`npm run generate\`: edit that, not this.`;
  document.commentBefore = header.replace(/^/gm, ' ');
  return document.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** Repository path → the text it must hold. `read` gives a committed file; `crds` names manifests/crds/. */
export function generatedFiles(read: (path: string) => string, crds: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, schema] of Object.entries(publishedSchemas)) files.set(`schema/${name}`, schemaText(schema()));
  for (const kind of kinds) files.set(crdPath(kind), crdText(kind));
  const copies = [
    ...chartManifests.map((file) => [`manifests/${file}`, `charts/topogate/files/manifests/${file}`] as const),
    ...crds.map((file) => [`manifests/crds/${file}`, `charts/topogate/files/crds/${file}`] as const),
    [policyReportCrd, `charts/topogate/files/policyreport/policyreports.yaml`] as const,
  ];
  for (const [from, to] of copies) files.set(to, files.get(from) ?? read(from));
  return files;
}

/** The paths whose committed text differs from what is generated. */
export function staleFiles(read: (path: string) => string, crds: readonly string[]): string[] {
  return [...generatedFiles(read, crds)].filter(([path, text]) => read(path) !== text).map(([path]) => path);
}

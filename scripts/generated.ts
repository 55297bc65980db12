// What `npm run generate` writes, computed from the schemas of src/policy/schema/ and the files it is
// given: the JSON Schemas under schema/, the SchedulingPolicy CRD with its openAPIV3Schema, and the Helm
// chart's copies of manifests/ (the optional PolicyReport CRD among them).

import { isScalar, parseDocument, visit } from 'yaml';
import { policyCrdSchema } from '../src/policy/schema/crd.ts';
import { publishedSchemas, schemaText } from '../src/policy/schema/json.ts';

const policyCrd = 'manifests/crds/schedulingpolicies.yaml';
/** Not topogate's kind, so not in manifests/crds: installed only when asked (docs/rollout.md). */
const policyReportCrd = 'manifests/policyreport/policyreports.yaml';
const chartManifests = [
  'rbac.yaml',
  'policy-writer-rbac.yaml',
  'controlplane-rbac.yaml',
  'probe-rbac.yaml',
  'probe-daemonset.yaml',
];

/** The CRD file as it is, its schema replaced: its comments, names and columns are written by hand. */
function withGeneratedSchema(crdText: string): string {
  const document = parseDocument(crdText);
  const schema = document.createNode(policyCrdSchema(), { aliasDuplicateObjects: false });
  // Lists of plain values on one line ([spec], [In, NotIn]), as the hand-written manifests have them.
  visit(schema, { Seq: (_, list) => void (list.flow = list.items.every(isScalar)) });
  document.setIn(['spec', 'versions', 0, 'schema', 'openAPIV3Schema'], schema);
  return document.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** Repository path → the text it must hold. `read` gives a committed file; `crds` names manifests/crds/. */
export function generatedFiles(read: (path: string) => string, crds: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, schema] of Object.entries(publishedSchemas)) files.set(`schema/${name}`, schemaText(schema()));
  files.set(policyCrd, withGeneratedSchema(read(policyCrd)));
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

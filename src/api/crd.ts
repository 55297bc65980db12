// A topogate.dev kind as a CustomResourceDefinition: the frame every kind shares (cluster scope, the
// status subresource, the topogate category and labels) around what each kind's source says (names,
// printer columns, the spec and status schemas). apiVersion, kind and metadata are the API server's:
// the root schema only names them.

import Type, { type TSchema } from 'typebox';
import type { JsonSchema } from './schema/derive.ts';
import { jsonPatterns } from './schema/names.ts';
import { structural } from './schema/structural.ts';
import type { Resource } from './v1alpha1/resource.ts';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  /** 1: shown by `kubectl get -o wide` only. */
  readonly priority?: number;
}

export interface KindDefinition {
  readonly resource: Resource;
  /** What the kind is and who writes it: the comment at the top of its CRD file. */
  readonly about: string;
  readonly shortNames?: readonly string[];
  readonly printerColumns: readonly PrinterColumn[];
  /** Keywords of the object's root schema: required parts, CEL over metadata. */
  readonly root?: JsonSchema;
  /** Absent: the kind has no spec (everything is status). */
  readonly spec?: TSchema;
  readonly status: TSchema;
  /** The whole object as a file holds it, when a loader checks more than documentSchema says. */
  readonly document?: TSchema;
}

export const crdName = ({ resource }: KindDefinition): string => `${resource.plural}.${resource.group}`;

export function crdSchema(kind: KindDefinition): JsonSchema {
  return {
    type: 'object',
    ...kind.root,
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      ...(kind.spec && { spec: structural(kind.spec) }),
      status: structural(kind.status),
    },
  };
}

export function customResourceDefinition(kind: KindDefinition): JsonSchema {
  const { group, version, kind: name, plural } = kind.resource;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: crdName(kind),
      labels: { 'app.kubernetes.io/name': 'topogate', 'app.kubernetes.io/component': 'crd' },
    },
    spec: {
      group,
      scope: 'Cluster',
      names: {
        kind: name,
        listKind: `${name}List`,
        plural,
        singular: name.toLowerCase(),
        ...(kind.shortNames && { shortNames: kind.shortNames }),
        categories: ['topogate'],
      },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: kind.printerColumns,
          schema: { openAPIV3Schema: crdSchema(kind) },
        },
      ],
    },
  };
}

/** The whole object as a file holds it (schema/<kind>.schema.json): what a YAML editor checks. */
export function documentSchema(kind: KindDefinition): TSchema {
  if (kind.document) return kind.document;
  const { apiVersion, kind: name } = kind.resource;
  return Type.Object(
    {
      apiVersion: Type.Literal(apiVersion),
      kind: Type.Literal(name),
      metadata: Type.Object({ name: Type.String(jsonPatterns.dnsSubdomain) }),
      ...(kind.spec && { spec: kind.spec }),
      status: Type.Optional(kind.status),
    },
    { description: `topogate ${name} ${kind.resource.version}.`, additionalProperties: false },
  );
}

// The SchedulingPolicy CRD's openAPIV3Schema, derived from policy.ts and status.ts. A structural
// schema (Kubernetes "structural schema" rules) has a type on every node, no $ref, const or
// propertyNames, and no additionalProperties beside properties (the API server prunes unknown
// fields); what JSON Schema says with allOf, anyOf or if/then, the CRD says in the
// x-kubernetes-validations (CEL) the same nodes carry. apiVersion, kind and metadata are the API
// server's: the root only names them.

import { deriveSchema, type JsonSchema } from './derive.ts';
import { policySpec } from './policy.ts';
import { policyStatus } from './status.ts';

const jsonOnly = new Set(['$schema', 'title', 'propertyNames', 'allOf', 'anyOf', 'if', 'then']);

function structural(node: JsonSchema): JsonSchema {
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

export function policyCrdSchema(): JsonSchema {
  return {
    type: 'object',
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: deriveSchema(policySpec, structural),
      status: deriveSchema(policyStatus, structural),
    },
  };
}

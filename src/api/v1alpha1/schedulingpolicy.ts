// SchedulingPolicy: what topogate adds to matching Pods (docs/policy.md). The spec is
// schedulingpolicy-spec.ts; here the kind, the document the loader checks, the status subresource
// topogate writes (one replica, by a Lease; the loader ignores it) and the CRD's frame.

import Type from 'typebox';
import type { KindDefinition } from '../crd.ts';
import type { Frozen } from '../schema/frozen.ts';
import { checkDnsSubdomain, jsonPatterns } from '../schema/names.ts';
import { exact } from '../schema/refine.ts';
import { resource } from './resource.ts';
import { policySpec } from './schedulingpolicy-spec.ts';

export const SCHEDULING_POLICY = resource('SchedulingPolicy', 'schedulingpolicies');

const condition = Type.Object({
  type: Type.String({ maxLength: 316 }),
  status: Type.Enum(['True', 'False', 'Unknown']),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  message: Type.Optional(Type.String({ maxLength: 32768 })),
  observedGeneration: Type.Optional(Type.Integer()),
  lastTransitionTime: Type.Optional(Type.String({ format: 'date-time' })),
});

export const policyStatus = Type.Object(
  {
    observedGeneration: Type.Optional(
      Type.Integer({ description: 'The metadata.generation the conditions speak of.' }),
    ),
    conditions: Type.Optional(
      Type.Array(condition, {
        maxItems: 8,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
  },
  { description: 'Written by topogate (one replica, by a Lease) through the status subresource.' },
);

/** A condition as the CRD stores it; src/policy/status.ts narrows it to the one topogate writes. */
export type StatusCondition = Frozen<Type.Static<typeof condition>>;
/** The status subresource as the CRD stores it, read-only. */
export type StoredPolicyStatus = Frozen<Type.Static<typeof policyStatus>>;

/** A policy file's document, or an object's, as the loader checks it. */
export const policyDocument = Type.Object(
  {
    apiVersion: Type.Literal(SCHEDULING_POLICY.apiVersion),
    kind: Type.Literal(SCHEDULING_POLICY.kind),
    metadata: Type.Object({
      name: exact(
        Type.String({ description: 'Unique among the loaded policies.', ...jsonPatterns.dnsSubdomain }),
        checkDnsSubdomain,
      ),
    }),
    spec: policySpec,
    status: Type.Optional(Type.Object({}, { description: 'Ignored: topogate writes it.' })),
  },
  {
    description: 'topogate SchedulingPolicy v1alpha1: topology-aware placement injected into Pods at admission.',
    additionalProperties: false,
  },
);

/** A checked and defaulted policy document, before it becomes a SchedulingPolicy. */
export type PolicyDocument = Type.Static<typeof policyDocument>;

const ready = (field: string) => `.status.conditions[?(@.type=="Ready")].${field}`;

export const schedulingPolicyDefinition: KindDefinition = {
  resource: SCHEDULING_POLICY,
  about: `What topogate adds to matching Pods (docs/policy.md).
Cluster-scoped: a policy selects Pods across namespaces (match.namespaces, namespaceSelector), so
it is a cluster administrator's object, like the Nodes and topology it speaks of; a namespaced
policy would let a namespace's editors steer the placement of other namespaces' Pods.
metadata.name needs no rule here: the API server checks every custom resource's name as a
DNS-1123 subdomain, which is what the loader asks of a policy name.
The schema says as much of the loader's checks as OpenAPI and CEL can; \`topogate lint\` and the
loader remain the full check (an object the loader rejects is reported and changes nothing).
topogate writes status (one replica, by a Lease) through the status subresource: a user's apply
never resets it.`,
  shortNames: ['schedpol', 'tgp'],
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: ready('status') },
    { name: 'Reason', type: 'string', jsonPath: ready('reason') },
    { name: 'Priority', type: 'integer', jsonPath: '.spec.priority' },
    { name: 'Enforcement', type: 'string', jsonPath: '.spec.enforcement' },
    { name: 'Rollout', type: 'integer', jsonPath: '.spec.rollout.percent' },
    { name: 'OnUnsatisfiable', type: 'string', jsonPath: '.spec.onUnsatisfiable' },
    { name: 'Message', type: 'string', jsonPath: ready('message'), priority: 1 },
    { name: 'Namespaces', type: 'string', jsonPath: '.spec.match.namespaces', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  root: { required: ['spec'] },
  spec: policySpec,
  status: policyStatus,
  document: policyDocument,
};

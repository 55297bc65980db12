// The status subresource of a SchedulingPolicy object, as the CRD states it: topogate writes it
// (../status.ts, one replica by a Lease); the loader ignores it.

import Type from 'typebox';

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

/** A condition as the CRD stores it; ../status.ts narrows it to the one topogate writes. */
export type StatusCondition = Readonly<Type.Static<typeof condition>>;
/** The status subresource as the CRD stores it, read-only. */
export interface StoredPolicyStatus {
  readonly observedGeneration?: Type.Static<typeof policyStatus>['observedGeneration'];
  readonly conditions?: readonly StatusCondition[];
}

// The format of a policy test suite (`topogate-test.yaml`), run by `topogate test`: policies and
// topology files, and cases each with a Pod (or workload) and the outcome expected of the webhook.
// In TypeBox, as the SchedulingPolicy schema (src/api/v1alpha1/); schema/policytest.schema.json is generated from it.

import Type from 'typebox';
import { checkDnsLabel, jsonPatterns } from '../../api/schema/names.ts';
import { exact } from '../../api/schema/refine.ts';
import { API_VERSION } from '../../api/v1alpha1/resource.ts';

export const TEST_KIND = 'PolicyTest';

const strings = (description?: string) => Type.Array(Type.String(), description ? { description } : {});

const pointer = exact(Type.String(), (text) =>
  text === '' || text.startsWith('/') ? undefined : `${JSON.stringify(text)} is not a JSON pointer (it starts with /)`,
);

const expectation = Type.Object(
  {
    allowed: Type.Boolean({ description: 'Whether the Pod is admitted.', default: true }),
    applied: Type.Optional(strings('Exactly these policies are applied, in this order.')),
    audited: Type.Optional(strings('Exactly these Audit policies would change the Pod, in priority order.')),
    nodes: Type.Optional(strings('Exactly these schedulable nodes allow the mutated Pod (any order).')),
    fields: Type.Optional(
      Type.Unsafe<Readonly<Record<string, unknown>>>({
        type: 'object',
        description: 'JSON pointer into the mutated Pod → its expected value (null: absent).',
        propertyNames: pointer,
        additionalProperties: {},
      }),
    ),
    warnings: Type.Optional(strings('Each is a substring of some warning; [] expects none.')),
    message: Type.Optional(Type.String({ description: 'A substring of the denial message.' })),
  },
  { additionalProperties: false },
);

const testCase = Type.Object(
  {
    name: Type.String(),
    pod: exact(
      Type.Unsafe<string | Readonly<Record<string, unknown>>>({
        type: ['string', 'object'],
        description: 'A file (relative to the suite) holding one Pod or workload, or the object itself.',
      }),
      (value) => (value === '' ? 'must name a file or be an inline object' : undefined),
    ),
    namespace: Type.Optional(exact(Type.String(jsonPatterns.dnsLabel), checkDnsLabel)),
    expect: expectation,
  },
  { additionalProperties: false },
);

export const testSuite = Type.Object(
  {
    apiVersion: Type.Literal(API_VERSION),
    kind: Type.Literal(TEST_KIND),
    metadata: Type.Object({ name: Type.String() }),
    policies: Type.Array(Type.String(), {
      description: 'Policy files or folders, relative to this file.',
      minItems: 1,
    }),
    topology: Type.Array(Type.String(), {
      description: 'Topology object files or folders, relative to this file.',
      minItems: 1,
    }),
    cases: Type.Array(testCase, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type TestSuite = Type.Static<typeof testSuite>;
export type TestCase = TestSuite['cases'][number];
export type Expectation = TestCase['expect'];

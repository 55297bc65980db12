// The format of a policy test suite (`topogate-test.yaml`), run by
// `topogate test`: policies and topology files, and cases each with a Pod
// (or workload) and the outcome expected of the webhook.

import type { Schema } from './checks.ts';
import { anything, boolean, list, object, oneOf, optional, record, required, string, typeName } from './checks.ts';
import { checkDnsLabel, jsonPatterns } from './names.ts';
import { API_VERSION } from './policy.ts';

export const TEST_KIND = 'PolicyTest';

export interface Expectation {
  readonly allowed: boolean;
  readonly applied?: readonly string[];
  readonly audited?: readonly string[];
  readonly nodes?: readonly string[];
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly warnings?: readonly string[];
  readonly message?: string;
}

export interface TestCase {
  readonly name: string;
  /** A file (relative to the suite) holding one Pod or workload, or the object itself. */
  readonly pod: string | Readonly<Record<string, unknown>>;
  readonly namespace?: string;
  readonly expect: Expectation;
}

export interface TestSuite {
  readonly metadata: { readonly name: string };
  readonly policies: readonly string[];
  readonly topology: readonly string[];
  readonly cases: readonly TestCase[];
}

const fileOrObject: Schema<TestCase['pod']> = {
  check(value, path, issues) {
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    issues.push({ path, at: 'value', message: `expected a file name or an inline object, got ${typeName(value)}` });
    return undefined;
  },
  json: () => ({ type: ['string', 'object'] }),
};

const pointer = string({
  valid: (text) =>
    text === '' || text.startsWith('/')
      ? undefined
      : `${JSON.stringify(text)} is not a JSON pointer (it starts with /)`,
});

const expectation = object<Expectation>({
  allowed: optional(boolean('Whether the Pod is admitted.'), true),
  applied: optional(list(string(), { description: 'Exactly these policies are applied, in this order.' })),
  audited: optional(
    list(string(), { description: 'Exactly these Audit policies would change the Pod, in priority order.' }),
  ),
  nodes: optional(
    list(string(), { description: 'Exactly these schedulable nodes allow the mutated Pod (any order).' }),
  ),
  fields: optional(
    record(pointer, anything(), 'JSON pointer into the mutated Pod → its expected value (null: absent).'),
  ),
  warnings: optional(list(string(), { description: 'Each is a substring of some warning; [] expects none.' })),
  message: optional(string({ description: 'A substring of the denial message.' })),
});

const testCase = object<TestCase>({
  name: required(string()),
  pod: required(fileOrObject),
  namespace: optional(string({ valid: checkDnsLabel, json: jsonPatterns.dnsLabel })),
  expect: required(expectation),
});

export const testSuite: Schema<TestSuite> = object<TestSuite>({
  apiVersion: required(oneOf([API_VERSION])),
  kind: required(oneOf([TEST_KIND])),
  metadata: required(object({ name: required(string()) }, { open: true })),
  policies: required(list(string(), { minItems: 1, description: 'Policy files or folders, relative to this file.' })),
  topology: required(
    list(string(), { minItems: 1, description: 'Topology object files or folders, relative to this file.' }),
  ),
  cases: required(list(testCase, { minItems: 1 })),
});

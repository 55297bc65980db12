import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decodeReview } from '../../../src/admission/decode.ts';
import { encodeReview } from '../../../src/admission/encode.ts';
import { handleAdmission } from '../../../src/admission/handler.ts';
import { parseJson } from '../../../src/admission/json.ts';
import type { Decision } from '../../../src/policy/types.ts';

const decide = (): Decision => ({
  allowed: true,
  patch: [{ op: 'add', path: '/metadata/labels', value: {} }],
  warnings: [],
  auditAnnotations: {},
  applied: [],
  matched: [],
});

/** Whatever comes in, the answer is an error message or a well-formed review: never a throw. */
function answer(value: unknown): string | Record<string, any> {
  const decoded = decodeReview(value);
  if (!decoded.ok) return decoded.message;
  return JSON.parse(encodeReview(decoded.review, handleAdmission(decoded.review.request, { decide }).answer));
}

function checkAnswer(value: unknown): void {
  const result = answer(value);
  if (typeof result === 'string') {
    assert.match(result, /^not an AdmissionReview: \S/);
    return;
  }
  assert.equal(result.kind, 'AdmissionReview');
  assert.equal(result.response.uid, (value as { request: { uid: string } }).request.uid);
  assert.equal(typeof result.response.allowed, 'boolean');
}

const anyField = fc.oneof(fc.constant(undefined), fc.anything());
const reviewLike = fc.record({
  apiVersion: fc.oneof(fc.constantFrom('admission.k8s.io/v1', 'admission.k8s.io/v1beta1'), fc.anything()),
  kind: fc.oneof(fc.constant('AdmissionReview'), fc.anything()),
  request: fc.oneof(
    fc.anything(),
    fc.record({
      uid: fc.oneof(fc.string(), anyField),
      operation: fc.oneof(fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT'), anyField),
      kind: fc.oneof(
        fc.record({
          group: fc.constantFrom('', 'apps', undefined),
          version: fc.constant('v1'),
          kind: fc.constantFrom('Pod', 'Binding', 'Deployment'),
        }),
        anyField,
      ),
      resource: fc.oneof(
        fc.record({
          group: fc.constantFrom('', 'apps'),
          version: fc.constant('v1'),
          resource: fc.constantFrom('pods', 'deployments'),
        }),
        anyField,
      ),
      subResource: fc.oneof(fc.constantFrom(undefined, '', 'binding', 'status'), anyField),
      namespace: fc.oneof(fc.string(), anyField),
      dryRun: fc.oneof(fc.boolean(), anyField),
      object: fc.oneof(
        fc.record({ metadata: fc.oneof(fc.record({ namespace: anyField, name: anyField }), anyField), spec: anyField }),
        anyField,
      ),
    }),
  ),
});

test('any JSON value gets a message or a well-formed answer, never a throw', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => checkAnswer(value)),
    { numRuns: 500 },
  );
});

test('any AdmissionReview-like object gets a message or a well-formed answer with its uid', () => {
  fc.assert(
    fc.property(reviewLike, (value) => checkAnswer(value)),
    { numRuns: 1000 },
  );
});

test('any text gets a parse result or a message, never a throw', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
      const result = parseJson(text);
      if (!result.ok) assert.ok(result.message.length > 0);
    }),
    { numRuns: 1000 },
  );
});

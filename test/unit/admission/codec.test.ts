import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { allowed, denied, patched } from '../../../src/admission/answer.ts';
import { decodeReview } from '../../../src/admission/decode.ts';
import { encodeReview } from '../../../src/admission/encode.ts';
import type { AdmissionReviewRequest, AdmissionReviewResponse } from '../../../src/admission/review.ts';

const fixtures = new URL('../../../../shared/fixtures/real-world/admission/', import.meta.url);
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(name, fixtures), 'utf8'));

function decodeMessage(body: unknown): string {
  const result = decodeReview(body);
  assert.equal(result.ok, false, 'expected a decoding error');
  return result.ok ? '' : result.message;
}

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
};
const review = (request: Record<string, unknown>, apiVersion = 'admission.k8s.io/v1') => ({
  apiVersion,
  kind: 'AdmissionReview',
  request,
});
const podCreate = { uid: 'u-1', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', object: pod };

test('decodes the API round-trip fixtures of both versions, keeping the version', () => {
  for (const version of ['v1', 'v1beta1']) {
    const result = decodeReview(fixture(`k8s-api-roundtrip.admission.k8s.io.${version}.AdmissionReview.json`));
    assert.ok(result.ok);
    assert.equal(result.review.apiVersion, `admission.k8s.io/${version}`);
    assert.equal(result.review.request.uid, 'uidValue');
    assert.equal(result.review.request.subResource, 'subResourceValue');
  }
});

test('says what is wrong with an envelope that is not an AdmissionReview', () => {
  assert.equal(
    decodeMessage([]),
    'not an AdmissionReview: the body must be a JSON object (an AdmissionReview), not an array',
  );
  assert.equal(
    decodeMessage('x'),
    'not an AdmissionReview: the body must be a JSON object (an AdmissionReview), not a string',
  );
  assert.equal(
    decodeMessage({ kind: 'AdmissionReview' }),
    'not an AdmissionReview: apiVersion is missing: expected one of admission.k8s.io/v1, admission.k8s.io/v1beta1',
  );
  assert.equal(
    decodeMessage({ apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview' }),
    'not an AdmissionReview: apiVersion is "admission.k8s.io/v2": expected one of admission.k8s.io/v1, admission.k8s.io/v1beta1',
  );
  assert.equal(
    decodeMessage({ apiVersion: 'admission.k8s.io/v1', kind: 'Pod' }),
    'not an AdmissionReview: kind is "Pod": expected AdmissionReview',
  );
  assert.equal(
    decodeMessage({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
    'not an AdmissionReview: request is missing',
  );
  assert.equal(
    decodeMessage(review({ ...podCreate, uid: '' })),
    'not an AdmissionReview: request.uid is missing: it must be a non-empty string',
  );
  assert.equal(
    decodeMessage(review({ ...podCreate, operation: undefined })),
    'not an AdmissionReview: request.operation is missing: it must be CREATE, UPDATE, DELETE or CONNECT',
  );
  assert.equal(
    decodeMessage(review({ ...podCreate, namespace: 7 })),
    'not an AdmissionReview: request.namespace must be a string, not a number',
  );
  assert.equal(
    decodeMessage(review({ ...podCreate, dryRun: 'yes' })),
    'not an AdmissionReview: request.dryRun must be a boolean, not a string',
  );
  assert.equal(
    decodeMessage(review({ ...podCreate, kind: 'Pod' })),
    'not an AdmissionReview: request.kind must be an object {group, version, kind}, not a string',
  );
  assert.equal(
    decodeMessage(review({ ...podCreate, resource: { resource: 1 } })),
    'not an AdmissionReview: request.resource.resource must be a string, not a number',
  );
  assert.equal(
    decodeMessage(review({ ...podCreate, object: null })),
    'not an AdmissionReview: request.object must be the Pod being created, not null',
  );
});

test('cuts a long wrong value short in the message', () => {
  const message = decodeMessage({ apiVersion: 'x'.repeat(1000), kind: 'AdmissionReview' });
  assert.ok(message.length < 200, message);
});

test('a request that is not a Pod CREATE needs no object (a real Pod DELETE)', () => {
  const request = fixture('kubewarden-pod-runtime-class.PodDeleteRequest.json') as Record<string, unknown>;
  assert.equal(request.object, null);
  assert.ok(decodeReview(review(request)).ok);
});

const decoded = (apiVersion: 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1'): AdmissionReviewRequest => ({
  apiVersion,
  request: { uid: 'u-7', operation: 'CREATE' },
});

test("encodes in the request's version with its uid, and no patch when nothing changed", () => {
  assert.deepEqual(JSON.parse(encodeReview(decoded('admission.k8s.io/v1beta1'), allowed())), {
    apiVersion: 'admission.k8s.io/v1beta1',
    kind: 'AdmissionReview',
    response: { uid: 'u-7', allowed: true },
  });
  assert.deepEqual(JSON.parse(encodeReview(decoded('admission.k8s.io/v1'), patched([]))).response, {
    uid: 'u-7',
    allowed: true,
  });
});

test('encodes a patch as base64 JSON with patchType, and warnings and audit annotations', () => {
  const ops = [{ op: 'add' as const, path: '/metadata/labels', value: { a: 'b' } }];
  const { response } = JSON.parse(
    encodeReview(decoded('admission.k8s.io/v1'), patched(ops, { warnings: ['w'], auditAnnotations: { k: 'v' } })),
  ) as AdmissionReviewResponse;
  assert.equal(response.patchType, 'JSONPatch');
  assert.deepEqual(JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8')), ops);
  assert.deepEqual(response.warnings, ['w']);
  assert.deepEqual(response.auditAnnotations, { k: 'v' });
});

test('encodes a denial with a status and no patch', () => {
  const { response } = JSON.parse(
    encodeReview(decoded('admission.k8s.io/v1'), denied('no GPU node in zone a')),
  ) as AdmissionReviewResponse;
  assert.deepEqual(response, {
    uid: 'u-7',
    allowed: false,
    status: { code: 403, reason: 'Forbidden', message: 'no GPU node in zone a' },
  });
});

test('the JSON text is, byte for byte, JSON.stringify of the AdmissionReview it stands for, whatever the strings hold', () => {
  const text = fc.string({ unit: 'binary' });
  fc.assert(
    fc.property(
      fc.constantFrom('admission.k8s.io/v1', 'admission.k8s.io/v1beta1'),
      text,
      fc.boolean(),
      text,
      fc.array(fc.record({ op: fc.constant('add' as const), path: text, value: fc.jsonValue() }), { maxLength: 3 }),
      fc.array(text, { maxLength: 3 }),
      fc.dictionary(text, text, { maxKeys: 3 }),
      (apiVersion, uid, isAllowed, message, patch, warnings, auditAnnotations) => {
        const details = { warnings, auditAnnotations };
        const answer = isAllowed ? patched(patch, details) : denied(message, details);
        const response: AdmissionReviewResponse['response'] = {
          uid,
          allowed: isAllowed,
          ...(!isAllowed && { status: { code: 403, reason: 'Forbidden', message } }),
          ...(isAllowed &&
            patch.length > 0 && {
              patchType: 'JSONPatch' as const,
              patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
            }),
          ...(warnings.length > 0 && { warnings }),
          ...(Object.keys(auditAnnotations).length > 0 && { auditAnnotations }),
        };
        assert.equal(
          encodeReview({ apiVersion, request: { uid, operation: 'CREATE' } }, answer),
          JSON.stringify({ apiVersion, kind: 'AdmissionReview', response }),
        );
      },
    ),
  );
});

// What makes an answer valid: the checks the API server applies to a
// mutating webhook's response (VerifyAdmissionResponse in k8s.io/apiserver,
// summarised in the shared notes/admission-v1-summary.md), then that the
// patch applies to the object it was made for, as the API server applies it.

import assert from 'node:assert/strict';
import fastJsonPatch from 'fast-json-patch';
import type { Decision } from '../../../src/policy/types.ts';

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');
const isStringMap = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((item) => typeof item === 'string');

/** The patch applied to a copy of the object, strictly (every op validated); throws as the API server would fail. */
export function applied(object: unknown, patch: unknown): unknown {
  assert.ok(Array.isArray(patch), 'a JSON Patch is an array');
  const copy = structuredClone(object);
  return fastJsonPatch.applyPatch(copy, structuredClone(patch) as fastJsonPatch.Operation[], true, true).newDocument;
}

export function assertValidDecision(decision: Decision, pod: unknown): void {
  assert.equal(typeof decision.allowed, 'boolean');
  assert.ok(Array.isArray(decision.patch));
  assert.ok(isStringArray(decision.warnings), 'warnings are strings');
  assert.ok(isStringMap(decision.auditAnnotations), 'audit annotations map strings to strings');
  assert.ok(isStringArray(decision.matched) && isStringArray(decision.applied));
  if (!decision.allowed) {
    assert.equal(typeof decision.message, 'string');
    assert.deepEqual(decision.patch, [], 'a denial carries no patch');
  } else if (decision.patch.length > 0) {
    applied(pod, decision.patch);
  }
}

/** A 200 answer to `review`, checked as kube-apiserver checks it; the patch must apply to request.object. */
export function assertValidResponse(review: Record<string, any>, answer: Record<string, any>): void {
  assert.equal(answer.apiVersion, review.apiVersion, "answered in the request's version");
  assert.equal(answer.kind, 'AdmissionReview');
  const response = answer.response;
  assert.ok(typeof response === 'object' && response !== null, 'response is present');
  assert.equal(response.uid, review.request.uid, 'response.uid is request.uid');
  assert.equal(typeof response.allowed, 'boolean');
  assert.equal('patch' in response, 'patchType' in response, 'patch and patchType come together');
  if (response.warnings !== undefined) assert.ok(isStringArray(response.warnings));
  if (response.auditAnnotations !== undefined) assert.ok(isStringMap(response.auditAnnotations));
  if (!response.allowed) {
    assert.equal(typeof response.status?.message, 'string');
    assert.equal(response.patch, undefined, 'a denial carries no patch');
  }
  if (response.patch !== undefined) {
    assert.equal(response.patchType, 'JSONPatch');
    const patch: unknown = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
    assert.ok(Array.isArray(patch) && patch.length > 0, 'a patch changes something');
    applied(review.request.object, patch);
  }
}

/** A refusal: a meta/v1 Status whose code is the HTTP status, with a message saying what is wrong. */
export function assertValidRefusal(status: number, body: Record<string, any>): void {
  assert.ok([400, 413, 415].includes(status), `refused with ${status}`);
  assert.equal(body.kind, 'Status');
  assert.equal(body.code, status);
  assert.ok(typeof body.message === 'string' && body.message.length > 0);
}

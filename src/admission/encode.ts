// Ties an answer to its request: same apiVersion (the API server checks the
// GVK), the request's uid, and patch/patchType only when something changed
// (the API server rejects one without the other). Written straight as JSON
// text, in the field order of the AdmissionReview type (review.ts): the same
// bytes JSON.stringify would give for it, without building it first.

import type { PatchOperation } from '../kube/types.ts';
import { isKept } from '../memo/kept.ts';
import type { AdmissionAnswer } from './answer.ts';
import type { AdmissionReviewRequest } from './review.ts';

/** The AdmissionReview answering `review`, as JSON text. */
export function encodeReview({ apiVersion, request }: AdmissionReviewRequest, answer: AdmissionAnswer): string {
  let response = `{"uid":${JSON.stringify(request.uid)},"allowed":${answer.allowed}`;
  if (!answer.allowed && answer.status) response += `,"status":${JSON.stringify(answer.status)}`;
  if (answer.allowed && answer.patch.length > 0)
    response += `,"patchType":"JSONPatch","patch":"${base64Patch(answer.patch)}"`;
  if (answer.warnings.length > 0) response += `,"warnings":${JSON.stringify(answer.warnings)}`;
  if (hasKeys(answer.auditAnnotations)) response += `,"auditAnnotations":${JSON.stringify(answer.auditAnnotations)}`;
  return `{"apiVersion":${JSON.stringify(apiVersion)},"kind":"AdmissionReview","response":${response}}}`;
}

function hasKeys(record: Readonly<Record<string, string>>): boolean {
  for (const _ in record) return true;
  return false;
}

// Decisions are memoised and never changed (DecisionMemo), so replicas share one patch array: encode it once.
// Only a kept patch is remembered: an entry for a one-off Pod's would outlive it (kept.ts).
const encoded = new WeakMap<readonly PatchOperation[], string>();

function base64Patch(patch: readonly PatchOperation[]): string {
  if (!isKept(patch)) return toBase64(patch);
  let text = encoded.get(patch);
  if (text === undefined) encoded.set(patch, (text = toBase64(patch)));
  return text;
}

function toBase64(patch: readonly PatchOperation[]): string {
  return Buffer.from(JSON.stringify(patch)).toString('base64');
}

// Ties an answer to its request: same apiVersion (the API server checks the
// GVK), the request's uid, and patch/patchType only when something changed
// (the API server rejects one without the other).

import type { PatchOperation } from '../kube/types.ts';
import type { AdmissionAnswer } from './answer.ts';
import type { AdmissionResponse, AdmissionReviewRequest, AdmissionReviewResponse } from './review.ts';

export function encodeReview(
  { apiVersion, request }: AdmissionReviewRequest,
  answer: AdmissionAnswer,
): AdmissionReviewResponse {
  const response: AdmissionResponse = {
    uid: request.uid,
    allowed: answer.allowed,
    ...(!answer.allowed && answer.status && { status: answer.status }),
    ...(answer.allowed && answer.patch.length > 0 && { patchType: 'JSONPatch', patch: base64Patch(answer.patch) }),
    ...(answer.warnings.length > 0 && { warnings: answer.warnings }),
    ...(Object.keys(answer.auditAnnotations).length > 0 && { auditAnnotations: answer.auditAnnotations }),
  };
  return { apiVersion, kind: 'AdmissionReview', response };
}

// Decisions are memoised and never changed (DecisionMemo), so replicas share one patch array: encode it once.
const encoded = new WeakMap<readonly PatchOperation[], string>();

function base64Patch(patch: readonly PatchOperation[]): string {
  let text = encoded.get(patch);
  if (text === undefined) encoded.set(patch, (text = Buffer.from(JSON.stringify(patch)).toString('base64')));
  return text;
}

// Ties an answer to its request: same apiVersion (the API server checks the
// GVK), the request's uid, and patch/patchType only when something changed
// (the API server rejects one without the other).

import type { AdmissionAnswer } from './answer.ts';
import type { AdmissionResponse, AdmissionReviewRequest, AdmissionReviewResponse } from './review.ts';

export function encodeReview({ apiVersion, request }: AdmissionReviewRequest, answer: AdmissionAnswer): AdmissionReviewResponse {
  const response: AdmissionResponse = {
    uid: request.uid,
    allowed: answer.allowed,
    ...(!answer.allowed && answer.status && { status: answer.status }),
    ...(answer.allowed && answer.patch.length > 0 && { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(answer.patch)).toString('base64') }),
    ...(answer.warnings.length > 0 && { warnings: answer.warnings }),
    ...(Object.keys(answer.auditAnnotations).length > 0 && { auditAnnotations: answer.auditAnnotations }),
  };
  return { apiVersion, kind: 'AdmissionReview', response };
}

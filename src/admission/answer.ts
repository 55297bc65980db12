// What the webhook answers, before it is tied to a request's uid and version:
// the constructors mirror controller-runtime's Allowed, Denied and Patched.

import type { PatchOperation } from '../kube/types.ts';
import type { AdmissionStatus } from './review.ts';

export interface AdmissionAnswer {
  readonly allowed: boolean;
  /** Only on a denial. */
  readonly status?: AdmissionStatus;
  /** Empty when the object is admitted unchanged. */
  readonly patch: readonly PatchOperation[];
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

export interface AnswerDetails {
  readonly warnings?: readonly string[];
  readonly auditAnnotations?: Readonly<Record<string, string>>;
}

export function allowed(details: AnswerDetails = {}): AdmissionAnswer {
  return answer(true, undefined, [], details);
}

export function denied(message: string, details: AnswerDetails = {}): AdmissionAnswer {
  return answer(false, { code: 403, reason: 'Forbidden', message }, [], details);
}

export function patched(patch: readonly PatchOperation[], details: AnswerDetails = {}): AdmissionAnswer {
  return answer(true, undefined, patch, details);
}

function answer(
  isAllowed: boolean,
  status: AdmissionStatus | undefined,
  patch: readonly PatchOperation[],
  details: AnswerDetails,
): AdmissionAnswer {
  return {
    allowed: isAllowed,
    ...(status && { status }),
    patch,
    warnings: details.warnings ?? [],
    auditAnnotations: details.auditAnnotations ?? {},
  };
}

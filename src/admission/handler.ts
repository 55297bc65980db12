// Turns a decoded request into an answer. A Pod CREATE reaches the decision,
// a ResourceClaim or ResourceClaimTemplate CREATE the dra rule; every other
// kind, operation or subresource is admitted unchanged, and so is a Pod over
// the bounds of what topogate reads (podBounds.ts).
// Pure when the functions it is given are.

import { podRequest } from '../kube/podFacts.ts';
import type { ClaimFacts } from '../kube/claimFacts.ts';
import type { Decision, PodRequest } from '../policy/types.ts';
import type { AdmissionAnswer } from './answer.ts';
import { allowed, denied, patched } from './answer.ts';
import { claimCreate } from './claim.ts';
import { isPodCreate, podNamespace } from './pod.ts';
import { overBoundsWarning, podOverBounds } from './podBounds.ts';
import type { AdmissionRequest } from './review.ts';
import { warningsOnPod } from './warnings-annotation.ts';

export type PodDecider = (request: PodRequest) => Decision;

export type ClaimDecider = (request: ClaimFacts) => Decision;

/** Told of each Pod admitted for real (no dry run) with its decision: what will exist once the API server stores it. */
export type AdmittedPod = (request: PodRequest, decision: Decision) => void;

export type Outcome = 'allowed' | 'patched' | 'denied' | 'skipped' | 'deferred';

/** The deferred answer (policy/deferral.ts) when the decision should wait for the placement controller, else undefined. */
export type PodDeferrer = (request: PodRequest, overrun: string | undefined) => Decision | undefined;

export interface HandlerOptions {
  readonly decide: PodDecider;
  /** Asked just before deciding: a warning when the decision must be skipped (the budget is spent). */
  readonly skip?: () => string | undefined;
  /** Given, a Pod is deferred rather than skipped; one that has nothing to defer is decided even when late. */
  readonly defer?: PodDeferrer;
  /** Given, ResourceClaim and ResourceClaimTemplate CREATEs are decided (the dra rule); else admitted unchanged. */
  readonly decideClaim?: ClaimDecider;
  readonly admitted?: AdmittedPod;
}

export interface Handled {
  readonly answer: AdmissionAnswer;
  readonly outcome: Outcome;
  /** Present when the decision ran. */
  readonly decision?: Decision;
}

export function handleAdmission(
  request: AdmissionRequest,
  { decide, skip, defer, decideClaim, admitted }: HandlerOptions,
): Handled {
  const claim = decideClaim && claimCreate(request);
  if (claim) {
    const decision = decideClaim!(claim);
    return { ...answerFor(decision), decision };
  }
  if (!isPodCreate(request)) return { answer: allowed(), outcome: 'allowed' };
  const skipWarning = skip?.();
  if (skipWarning !== undefined && defer === undefined)
    return { answer: allowed({ warnings: [skipWarning] }), outcome: 'skipped' };
  const overBounds = podOverBounds(request.object);
  if (overBounds !== undefined)
    return { answer: allowed({ warnings: [overBoundsWarning(overBounds)] }), outcome: 'skipped' };
  const pod = podRequest(request.object, podNamespace(request));
  const decision = defer?.(pod, skipWarning) ?? decide(pod);
  if (admitted && request.dryRun !== true && decision.allowed) admitted(pod, decision);
  return { ...answerFor(warningsOnPod(pod.facts, decision)), decision };
}

function answerFor(decision: Decision): Pick<Handled, 'answer' | 'outcome'> {
  const details = { warnings: decision.warnings, auditAnnotations: decision.auditAnnotations };
  if (!decision.allowed)
    return { answer: denied(decision.message ?? 'denied by a topogate SchedulingPolicy', details), outcome: 'denied' };
  if (decision.deferred !== undefined) return { answer: patched(decision.patch, details), outcome: 'deferred' };
  if (decision.patch.length > 0) return { answer: patched(decision.patch, details), outcome: 'patched' };
  return { answer: allowed(details), outcome: 'allowed' };
}

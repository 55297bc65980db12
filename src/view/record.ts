// A decision as the view's ring records it: from the webhook or from the
// placement controller, with deferred and skipped ones marked and why. Pure.

import { leftAloneReason } from '../policy/engine.ts';
import { workloadKey } from '../kube/workload-identity.ts';
import type { Decision, PodRequest } from '../policy/types.ts';
import type { RecentDecision } from './recent.ts';

function outcomeOf(request: PodRequest, decision: Decision): Pick<RecentDecision, 'outcome' | 'reason'> {
  if (!decision.allowed)
    return { outcome: 'denied', ...(decision.message !== undefined && { reason: decision.message }) };
  if (decision.deferred !== undefined) return { outcome: 'deferred', reason: decision.deferred };
  const skipped = leftAloneReason(request);
  if (skipped !== undefined) return { outcome: 'skipped', reason: skipped };
  return { outcome: decision.patch.length > 0 ? 'patched' : 'allowed' };
}

export function decisionRecord(
  request: PodRequest,
  decision: Decision,
  milliseconds: number,
  by: RecentDecision['by'],
  now: number,
): Omit<RecentDecision, 'id'> {
  return {
    at: new Date(now).toISOString(),
    namespace: request.facts.namespace,
    pod: request.name || '(unnamed)',
    workload: workloadKey(request.facts.workload),
    by,
    ...outcomeOf(request, decision),
    policies: decision.applied,
    latencyMs: milliseconds,
    ...(decision.snapshot !== undefined && { snapshot: decision.snapshot }),
  };
}

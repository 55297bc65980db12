// What the placement controller does with one gated Pod, decided purely: wait,
// or release it with the decision's node affinity and annotations, the gate
// removed, in one JSON Patch, and the Events that say so. The API server lets a
// gated Pod's node affinity only narrow, its annotations change and its gates
// go; anything else a decision would write is left out.

import type { PatchOperation, Pod } from '../kube/types.ts';
import { schedulingGates } from '../kube/podFacts.ts';
import { gateIndex, PLACEMENT_GATE } from '../policy/deferral.ts';
import { pointer } from '../policy/patch.ts';
import type { Decision } from '../policy/types.ts';

export type ReleaseOutcome = 'placed' | 'unchanged' | 'expired' | 'policy_dropped';

export interface PodEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export type Plan =
  | { readonly wait: string }
  | {
      readonly outcome: ReleaseOutcome;
      readonly patch: readonly PatchOperation[];
      readonly events: readonly PodEvent[];
    };

/** What a decision needs: the controller's decider, without the named policies, or why it must wait. */
export type Place = (without: ReadonlySet<string>) => Decision | { readonly wait: string };

/** The spread rules' outputs were written at admission: the engine finding them on the Pod is no news. */
const SETTLED_AT_ADMISSION = /^policy [^:]+: spread\[\d+\]: /;

/** Paths a gated Pod's update may touch (Kubernetes' ValidatePodUpdate for gated Pods). */
const MUTABLE_WHILE_GATED = ['/metadata/', '/spec/affinity'];

/**
 * `expired`: the Pod has been gated for --defer-max. Then a Reject policy still finding no node is dropped
 * (and named), and a model still not fit to decide on releases the Pod unchanged.
 */
export function planRelease(pod: Pod, place: Place, expired: boolean, gatedMs: number): Plan {
  const without = new Set<string>();
  const events: PodEvent[] = [];
  for (;;) {
    const decision = place(without);
    if ('wait' in decision) {
      if (!expired) return decision;
      return {
        outcome: 'expired',
        patch: ungate(pod, []),
        events: [
          warning(
            'PlacementTimedOut',
            `released unchanged after ${seconds(gatedMs)} behind ${PLACEMENT_GATE}: ${decision.wait}`,
          ),
        ],
      };
    }
    if (!decision.allowed) {
      if (!expired || decision.rejectedBy === undefined) return { wait: decision.message ?? 'denied' };
      without.add(decision.rejectedBy);
      events.push(
        warning(
          'PlacementPolicyDropped',
          `policy ${decision.rejectedBy} found no schedulable node within ${seconds(gatedMs)}: released without its placement (${decision.message ?? ''})`,
        ),
      );
      continue;
    }
    const kept = decision.patch.filter((operation) =>
      MUTABLE_WHILE_GATED.some((prefix) => operation.path.startsWith(prefix)),
    );
    const placed = decision.applied.length > 0;
    for (const text of decision.warnings)
      if (!SETTLED_AT_ADMISSION.test(text)) events.push(warning('PlacementWarning', text));
    events.push({
      type: 'Normal',
      reason: 'Placed',
      message: placed
        ? `placed by ${decision.applied.join(', ')} after ${seconds(gatedMs)} behind ${PLACEMENT_GATE}`
        : `released after ${seconds(gatedMs)} behind ${PLACEMENT_GATE}: no policy changed the placement`,
    });
    return {
      outcome: without.size > 0 ? 'policy_dropped' : placed ? 'placed' : 'unchanged',
      patch: ungate(pod, kept),
      events,
    };
  }
}

/**
 * The decision's operations, then the gate's removal, guarded: applied only to the Pod as it was read (its
 * resourceVersion) and only where our gate still is, so a concurrent change makes the patch fail, not misapply.
 */
function ungate(pod: Pod, operations: readonly PatchOperation[]): PatchOperation[] {
  const index = gateIndex(schedulingGates(pod));
  const gate = ['spec', 'schedulingGates', index];
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata?.resourceVersion },
    ...operations,
    { op: 'test', path: pointer([...gate, 'name']), value: PLACEMENT_GATE },
    { op: 'remove', path: pointer(gate) },
  ];
}

function warning(reason: string, message: string): PodEvent {
  return { type: 'Warning', reason, message };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

// What the placement controller does with one gated Pod, decided purely: wait,
// or release it with the decision's node affinity and annotations, the gate
// removed, in one JSON Patch, and the Events that say so. The API server lets a
// gated Pod's node affinity only narrow, its annotations change and its gates
// go: the decision is made for a Pod that exists (AfterCreation), so a spread
// the Pod lacks is pinned as node affinity and a scheduler name it lacks is
// dropped, and the decision record names only what the Pod carries.

import fastJsonPatch from 'fast-json-patch';
import type { PatchOperation, Pod } from '../kube/types.ts';
import { schedulingGates } from '../kube/podFacts.ts';
import { gateIndex, PLACEMENT_GATE } from '../policy/deferral.ts';
import { pointer } from '../policy/patch.ts';
import { readRecord } from '../policy/record.ts';
import { takeBack } from '../policy/takeBack.ts';
import type { AfterCreation, Decision } from '../policy/types.ts';

export type ReleaseOutcome = 'placed' | 'unchanged' | 'expired' | 'unsatisfiable';

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

/** The controller's decision on the Pod as it exists, or why it must wait. */
export type Place = (created: AfterCreation) => Decision | { readonly wait: string };

/** The spread rules' outputs were written at admission: the engine finding them on the Pod is no news. */
const SETTLED_AT_ADMISSION = /^policy [^:]+: spread\[\d+\]: /;

/** Paths a gated Pod's update may touch (Kubernetes' ValidatePodUpdate for gated Pods). */
const MUTABLE_WHILE_GATED = ['/metadata/', '/spec/affinity'];

/**
 * `expired`: the Pod has been gated for --defer-max. Then a Reject policy still finding no node is applied with
 * its required placement (the Pod waits at the scheduler, never placed without it), and a model still not fit
 * to decide on releases the Pod unchanged. `pod` is the live Pod; `place` decides the Pod as topogate first saw it
 * (firstSeen).
 */
export function planRelease(pod: Pod, place: Place, expired: boolean, gatedMs: number): Plan {
  let decision = place(afterCreation(pod, false));
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
    if (!expired) return { wait: decision.message ?? 'denied' };
    decision = place(afterCreation(pod, true));
    // The model changed between the two decisions, in a way that makes it unfit: look again later.
    if ('wait' in decision) return decision;
    if (!decision.allowed) return { wait: decision.message ?? 'denied' };
  }
  const kept = decision.patch.filter((operation) =>
    MUTABLE_WHILE_GATED.some((prefix) => operation.path.startsWith(prefix)),
  );
  const placed = decision.applied.length > 0;
  const events: PodEvent[] = [];
  const unsatisfiable = decision.unsatisfiable ?? [];
  for (const policy of unsatisfiable)
    events.push(
      warning(
        'PlacementUnsatisfiable',
        `policy ${policy} found no schedulable node within ${seconds(gatedMs)}: released with its required placement, the Pod waits at the scheduler until a node meets it`,
      ),
    );
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
    outcome: unsatisfiable.length > 0 ? 'unsatisfiable' : placed ? 'placed' : 'unchanged',
    patch: ungate(pod, kept),
    events,
  };
}

/** The Pod as topogate first saw it: what it wrote when it deferred the Pod at admission, taken back. */
export function firstSeen(pod: Pod): Pod {
  return takeBack(pod, readRecord(pod).record);
}

/** What the live Pod carries of what cannot change once it exists. */
function afterCreation(pod: Pod, keepUnsatisfiable: boolean): AfterCreation {
  const spreads = Array.isArray(pod.spec?.topologySpreadConstraints) ? pod.spec.topologySpreadConstraints : [];
  const schedulerName = pod.spec?.schedulerName;
  return { spreads, schedulerName: typeof schedulerName === 'string' ? schedulerName : undefined, keepUnsatisfiable };
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

/**
 * The Pod as the release's patch makes it, with no resourceVersion (the API server gives the new one): what the
 * model may count until its watch brings the Pod itself.
 */
export function released(pod: Pod, patch: readonly PatchOperation[]): Pod {
  // The patch's own tests guard the real release; here they hold (it was made from this Pod).
  const after = fastJsonPatch.applyPatch(structuredClone(pod), [...patch] as fastJsonPatch.Operation[], false, true)
    .newDocument as Pod;
  if (after.metadata) delete after.metadata.resourceVersion;
  return after;
}

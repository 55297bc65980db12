// A Pod that a controller creates (a ReplicaSet's, a Job's, a StatefulSet's…)
// has no person reading the API server's answer: the warnings topogate gives
// would be lost. They go on the Pod instead, as the annotation
// `topogate.dev/warnings` (one warning a line), where `kubectl describe pod`
// and `kubectl get pod -o yaml` show them.

import type { PodFacts } from '../kube/podFacts.ts';
import type { PatchOperation } from '../kube/types.ts';
import { AUDIT_WARNING } from '../policy/fold.ts';
import { isKept, keep } from '../memo/kept.ts';
import type { Decision } from '../policy/types.ts';

export const WARNINGS_ANNOTATION = 'topogate.dev/warnings';

/** The Pod has a controller (an owner reference with `controller: true`): its workload is not the Pod itself. */
export function controllerMade(pod: PodFacts): boolean {
  return pod.workload.kind !== 'Pod';
}

/**
 * The decision, with its warnings also written on the Pod when a controller made it and it is admitted. An Audit
 * policy's warnings are not: Audit leaves the Pod byte-identical (its would-be outputs go to the audit
 * annotations, metrics and PolicyReports).
 */
export function warningsOnPod(pod: PodFacts, decision: Decision): Decision {
  if (!decision.allowed || decision.warnings.length === 0 || !controllerMade(pod)) return decision;
  const onPod = decision.warnings.some(isAudit)
    ? decision.warnings.filter((text) => !isAudit(text))
    : decision.warnings;
  if (onPod.length === 0) return decision;
  return { ...decision, patch: withWarnings(decision.patch, onPod.join('\n'), pod.shape.annotations) };
}

const isAudit = (warning: string) => warning.startsWith(AUDIT_WARNING);

/** Warnings texts remembered per kept patch: Pods of one shape have one or two (with or without annotations). */
const REMEMBERED_PER_PATCH = 4;

interface Annotated {
  readonly value: string;
  readonly podHasAnnotations: boolean;
  readonly patch: readonly PatchOperation[];
}

// A patch the memo keeps (a replica's decision, or what new Pods of one shape write: DecisionMemo) gets the same
// array with the warnings back for the same warnings, so that its encoding (encode.ts) is made once too, not once a
// Pod. A patch the memo does not keep is annotated afresh: an entry here would outlive it (kept.ts).
const annotated = new WeakMap<readonly PatchOperation[], Annotated[]>();

function withWarnings(
  patch: readonly PatchOperation[],
  value: string,
  podHasAnnotations: boolean,
): readonly PatchOperation[] {
  if (!isKept(patch)) return annotate(patch, value, podHasAnnotations);
  let known = annotated.get(patch);
  if (known === undefined) annotated.set(patch, (known = []));
  const found = known.find((entry) => entry.value === value && entry.podHasAnnotations === podHasAnnotations);
  if (found !== undefined) return found.patch;
  const made = annotate(patch, value, podHasAnnotations);
  keep(made);
  if (known.length === REMEMBERED_PER_PATCH) known.shift();
  known.push({ value, podHasAnnotations, patch: made });
  return made;
}

function annotate(patch: readonly PatchOperation[], value: string, podHasAnnotations: boolean): PatchOperation[] {
  const annotationsExist =
    podHasAnnotations ||
    patch.some((operation) => operation.op === 'add' && operation.path === '/metadata/annotations');
  const operation: PatchOperation = annotationsExist
    ? { op: 'add', path: `/metadata/annotations/${WARNINGS_ANNOTATION.replace('/', '~1')}`, value }
    : { op: 'add', path: '/metadata/annotations', value: { [WARNINGS_ANNOTATION]: value } };
  return [...patch, operation];
}

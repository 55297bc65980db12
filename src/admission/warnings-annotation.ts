// A Pod that a controller creates (a ReplicaSet's, a Job's, a StatefulSet's…)
// has no person reading the API server's answer: the warnings topogate gives
// would be lost. They go on the Pod instead, as the annotation
// `topogate.dev/warnings` (one warning a line), where `kubectl describe pod`
// and `kubectl get pod -o yaml` show them.

import type { PodFacts } from '../kube/podFacts.ts';
import type { PatchOperation } from '../kube/types.ts';
import { isKept, keep } from '../policy/kept.ts';
import type { Decision } from '../policy/types.ts';

export const WARNINGS_ANNOTATION = 'topogate.dev/warnings';

/** The Pod has a controller (an owner reference with `controller: true`): its workload is not the Pod itself. */
export function controllerMade(pod: PodFacts): boolean {
  return pod.workload.kind !== 'Pod';
}

/** The decision, with its warnings also written on the Pod when a controller made it and it is admitted. */
export function warningsOnPod(pod: PodFacts, decision: Decision): Decision {
  if (!decision.allowed || decision.warnings.length === 0 || !controllerMade(pod)) return decision;
  const annotated = pod.shape.annotations;
  if (!isKept(decision)) return withWarnings(decision, annotated);
  const known = written.get(decision);
  const cached = annotated ? known?.annotated : known?.bare;
  if (cached !== undefined) return cached;
  const result = withWarnings(decision, annotated);
  keep(result, result.patch);
  written.set(decision, { ...known, [annotated ? 'annotated' : 'bare']: result });
  return result;
}

// Replicas share one memoised decision, never changed (DecisionMemo): the same one on a Pod of the same shape gets
// the same patch array back, so that its encoding (encode.ts) is made once too, not once a replica. A decision the
// memo does not keep (a Pod seen once or twice) is annotated afresh: an entry here would outlive it (kept.ts).
const written = new WeakMap<Decision, { readonly annotated?: Decision; readonly bare?: Decision }>();

function withWarnings(decision: Decision, podHasAnnotations: boolean): Decision {
  const value = decision.warnings.join('\n');
  const annotationsExist =
    podHasAnnotations ||
    decision.patch.some((operation) => operation.op === 'add' && operation.path === '/metadata/annotations');
  const operation: PatchOperation = annotationsExist
    ? { op: 'add', path: `/metadata/annotations/${WARNINGS_ANNOTATION.replace('/', '~1')}`, value }
    : { op: 'add', path: '/metadata/annotations', value: { [WARNINGS_ANNOTATION]: value } };
  return { ...decision, patch: [...decision.patch, operation] };
}

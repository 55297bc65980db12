// A live Pod as topogate first saw it: what its decision record says topogate
// added is taken back, with the annotations topogate writes and what the
// scheduler and kubelet wrote later (spec.nodeName, status). Pure: `explain
// pod/…` and `audit` decide the result again.

import { isDeepStrictEqual } from 'node:util';
import { isRecord } from '../kube/json.ts';
import type { NodeSelectorTerm, Pod } from '../kube/types.ts';
import { NUMA_HINT_ANNOTATION, POLICIES_ANNOTATION } from './merge.ts';
import { DECISION_ANNOTATION, type DecisionRecord } from './record.ts';

const DEFAULT_SCHEDULER = 'default-scheduler';
/** Written by topogate, never by the user: taken back with or without a record. */
const TOPOGATE_ANNOTATIONS = [POLICIES_ANNOTATION, NUMA_HINT_ANNOTATION, DECISION_ANNOTATION];

export function takeBack(live: Pod, record: DecisionRecord | undefined): Pod {
  const pod = structuredClone(live) as Pod & { status?: unknown };
  delete pod.status;
  if (pod.spec) delete pod.spec.nodeName;
  const annotations = pod.metadata?.annotations;
  if (annotations) {
    for (const key of TOPOGATE_ANNOTATIONS) delete annotations[key];
    // topogate created the map when the Pod had none.
    if (Object.keys(annotations).length === 0) delete pod.metadata!.annotations;
  }
  if (record === undefined || !pod.spec) return pod;
  const spec = pod.spec;
  const { required = [], preferred = [], spread = [], schedulerName } = record.added;
  // The Pod is the API server's JSON: its types say what a field should be, not that it is.
  const declared = spec.affinity?.nodeAffinity;
  const nodeAffinity = isRecord(declared) ? spec.affinity!.nodeAffinity! : undefined;
  if (nodeAffinity) {
    const terms = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    if (Array.isArray(terms)) {
      const kept = terms.flatMap((term): NodeSelectorTerm[] => {
        if (!isRecord(term) || !Array.isArray(term.matchExpressions)) return [term];
        const expressions = term.matchExpressions.filter(
          (expression) => !required.some((added) => isDeepStrictEqual(added, expression)),
        );
        if (expressions.length === term.matchExpressions.length) return [term];
        const rest: Record<string, unknown> = { ...term, matchExpressions: expressions };
        if (expressions.length === 0) delete rest.matchExpressions;
        const left = expressions.length > 0 || (Array.isArray(term.matchFields) && term.matchFields.length > 0);
        return left ? [rest as NodeSelectorTerm] : [];
      });
      if (kept.length > 0) nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution!.nodeSelectorTerms = kept;
      else delete nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    }
    const preferredTerms = nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution;
    if (Array.isArray(preferredTerms)) {
      const kept = withoutEach(preferredTerms, preferred);
      if (kept.length > 0) nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution = kept;
      else delete nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution;
    }
    if (Object.keys(nodeAffinity).length === 0) delete spec.affinity!.nodeAffinity;
    if (spec.affinity && Object.keys(spec.affinity).length === 0) delete spec.affinity;
  }
  if (Array.isArray(spec.topologySpreadConstraints)) {
    const kept = spec.topologySpreadConstraints.filter(
      (constraint) =>
        !spread.some(
          (added) =>
            isRecord(constraint) &&
            added.topologyKey === constraint.topologyKey &&
            added.whenUnsatisfiable === constraint.whenUnsatisfiable,
        ),
    );
    if (kept.length > 0) spec.topologySpreadConstraints = kept;
    else delete spec.topologySpreadConstraints;
  }
  if (schedulerName !== undefined && spec.schedulerName === schedulerName) spec.schedulerName = DEFAULT_SCHEDULER;
  return pod;
}

/** The list without one occurrence of each of `taken`. */
function withoutEach<T>(list: readonly T[], taken: readonly unknown[]): T[] {
  const rest = [...list];
  for (const item of taken) {
    const index = rest.findIndex((candidate) => isDeepStrictEqual(candidate, item));
    if (index >= 0) rest.splice(index, 1);
  }
  return rest;
}

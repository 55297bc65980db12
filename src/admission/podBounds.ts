// Bounds on the parts of a Pod topogate reads, checked before its facts are
// built. Webhooks run before the API server validates, so a Pod may hold what
// the API server would refuse, or far more than any real Pod: 100,000 labels,
// annotations or nodeSelector keys (1.8 MB, within the body limit) cost
// 0.25-1.3 s of the event loop to copy and match, which every other request
// waited for. Such a Pod is admitted unchanged with a warning saying why, as
// one over the budget is: placement is a service, and the API server's own
// checks still run after the webhook. The counts are a few times what a real
// Pod holds; annotations' total size is the API server's own limit.

import { isRecord } from '../kube/json.ts';

/** Entries in one map or list topogate reads (labels, annotations, nodeSelector, tolerations, terms, values, …). */
export const MOST_ENTRIES = 1_000;
/** Entries in all of them together. */
export const MOST_ENTRIES_IN_ALL = 10_000;
/** The API server's limit on a Pod's annotations, keys and values together (256 KiB). */
export const MOST_ANNOTATION_BYTES = 256 * 1024;

/** Why the Pod is more than topogate reads, or undefined when it is within its bounds. */
export function podOverBounds(pod: unknown): string | undefined {
  const metadata = isRecord(pod) && isRecord(pod.metadata) ? pod.metadata : undefined;
  const spec = isRecord(pod) && isRecord(pod.spec) ? pod.spec : undefined;
  const affinity = isRecord(spec?.affinity) ? spec.affinity : undefined;
  const nodeAffinity = isRecord(affinity?.nodeAffinity) ? affinity.nodeAffinity : undefined;
  const required = isRecord(nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution)
    ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    : undefined;
  let total = 0;
  const count = (value: unknown, path: string): string | undefined => {
    const entries = Array.isArray(value) ? value.length : isRecord(value) ? keysUpTo(value, MOST_ENTRIES + 1) : 0;
    total += entries;
    if (entries > MOST_ENTRIES) return `${path} has more than ${MOST_ENTRIES} entries`;
    if (total > MOST_ENTRIES_IN_ALL) return `the Pod has more than ${MOST_ENTRIES_IN_ALL} entries in the fields read`;
    return undefined;
  };
  const terms = Array.isArray(required?.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  return (
    count(metadata?.labels, 'metadata.labels') ??
    count(metadata?.annotations, 'metadata.annotations') ??
    annotationBytes(metadata?.annotations) ??
    count(spec?.nodeSelector, 'spec.nodeSelector') ??
    count(spec?.tolerations, 'spec.tolerations') ??
    count(spec?.topologySpreadConstraints, 'spec.topologySpreadConstraints') ??
    count(spec?.containers, 'spec.containers') ??
    count(spec?.initContainers, 'spec.initContainers') ??
    count(spec?.schedulingGates, 'spec.schedulingGates') ??
    count(nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution, 'preferred node affinity') ??
    count(terms, 'required node affinity') ??
    firstOf(terms, (term) =>
      isRecord(term)
        ? (count(term.matchExpressions, 'a required term') ??
          count(term.matchFields, 'a required term') ??
          firstOf([term.matchExpressions, term.matchFields], (requirements) =>
            Array.isArray(requirements)
              ? firstOf(requirements, (requirement) =>
                  isRecord(requirement) ? count(requirement.values, 'a requirement') : undefined,
                )
              : undefined,
          ))
        : undefined,
    )
  );
}

/** The warning of a Pod over its bounds. */
export function overBoundsWarning(problem: string): string {
  return `topogate skipped placement: ${problem}, more than it reads of one Pod; the Pod is admitted unchanged`;
}

function keysUpTo(value: Record<string, unknown>, most: number): number {
  let keys = 0;
  for (const key in value) if (Object.hasOwn(value, key) && ++keys >= most) break;
  return keys;
}

function annotationBytes(annotations: unknown): string | undefined {
  if (!isRecord(annotations)) return undefined;
  let bytes = 0;
  for (const [key, value] of Object.entries(annotations)) {
    bytes += key.length + (typeof value === 'string' ? value.length : 0);
    if (bytes > MOST_ANNOTATION_BYTES)
      return `metadata.annotations hold more than ${MOST_ANNOTATION_BYTES} bytes (the API server's own limit)`;
  }
  return undefined;
}

function firstOf<T>(items: readonly T[], problem: (item: T) => string | undefined): string | undefined {
  for (const item of items) {
    const found = problem(item);
    if (found !== undefined) return found;
  }
  return undefined;
}

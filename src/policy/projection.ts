// What a decision sees of a Pod's labels: only those some policy of the set
// reads (a podSelector's keys, a spread's selector keys; rules/table.ts says
// which per rule). A decision is then a function of the projected facts by
// construction, and so is the decision memo's key: a new workload's first Pod,
// whose new labels (pod-template-hash, a StatefulSet's pod name) no policy
// reads, takes the decision of its kind made before.

import { setOwn } from '../kube/json.ts';
import type { Labels } from '../kube/types.ts';
import type { PodRequest } from './types.ts';

const NO_LABELS: Labels = Object.freeze({});

/** `request` with its labels cut to `keys`; itself when it has no other. */
export function projected(request: PodRequest, keys: ReadonlySet<string>): PodRequest {
  const labels = request.facts.labels;
  let kept: Record<string, string> | undefined;
  let cut = false;
  for (const key of Object.keys(labels)) {
    if (!keys.has(key)) cut = true;
    // As podFacts.ts reads labels: "__proto__" an own key, not the prototype.
    else setOwn((kept ??= {}), key, labels[key]!);
  }
  return cut ? { ...request, facts: { ...request.facts, labels: kept ?? NO_LABELS } } : request;
}

// A policy's match block compiled once: every given field must hold. A
// failed match says which field failed, for explain.

import { matchesLabelSelector } from '../kube/selector.ts';
import type { PodContext } from './context.ts';
import { globMatcher } from './glob.ts';
import type { PolicyMatch } from './types.ts';

/** undefined when the Pod matches, else why not. */
export type Matcher = (pod: PodContext) => string | undefined;

export function compileMatch(match: PolicyMatch | undefined): Matcher {
  if (!match) return () => undefined;
  const checks: Matcher[] = [];
  if (match.namespaces) {
    const included = globMatcher(match.namespaces);
    checks.push((pod) => (included(pod.namespace) ? undefined : `namespace ${pod.namespace} is not in namespaces [${match.namespaces!.join(', ')}]`));
  }
  if (match.excludeNamespaces) {
    const excluded = globMatcher(match.excludeNamespaces);
    checks.push((pod) => (excluded(pod.namespace) ? `namespace ${pod.namespace} is in excludeNamespaces` : undefined));
  }
  const { namespaceSelector, podSelector, resources, qosClasses } = match;
  if (namespaceSelector) {
    checks.push((pod) => (matchesLabelSelector(namespaceSelector, pod.namespaceLabels) ? undefined : `namespace ${pod.namespace}'s labels do not match namespaceSelector`));
  }
  if (podSelector) {
    checks.push((pod) => (matchesLabelSelector(podSelector, pod.labels) ? undefined : "the Pod's labels do not match podSelector"));
  }
  if (resources) {
    checks.push((pod) => (resources.some((name) => (pod.requests[name] ?? 0) > 0) ? undefined : `the Pod requests none of [${resources.join(', ')}]`));
  }
  if (qosClasses) {
    checks.push((pod) => (qosClasses.includes(pod.qos) ? undefined : `QoS class ${pod.qos} is not in qosClasses [${qosClasses.join(', ')}]`));
  }
  return (pod) => {
    for (const check of checks) {
      const reason = check(pod);
      if (reason !== undefined) return reason;
    }
    return undefined;
  };
}

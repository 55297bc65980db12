// A policy's match block compiled once: every given field must hold. The
// hot path asks only whether; explain asks which field failed, and only
// then is the reason written.

import { matchesLabelSelector } from '../kube/selector.ts';
import type { PodContext } from './context.ts';
import { globMatcher } from './glob.ts';
import type { PolicyMatch } from './types.ts';

export interface Matcher {
  matches(pod: PodContext): boolean;
  /** Why the Pod does not match (the first field that fails), or undefined when it does. */
  whyNot(pod: PodContext): string | undefined;
}

interface Check {
  holds(pod: PodContext): boolean;
  reason(pod: PodContext): string;
}

export function compileMatch(match: PolicyMatch | undefined): Matcher {
  const checks = match ? compileChecks(match) : [];
  return {
    matches: (pod) => checks.every((check) => check.holds(pod)),
    whyNot: (pod) => {
      const failed = checks.find((check) => !check.holds(pod));
      return failed?.reason(pod);
    },
  };
}

function compileChecks(match: PolicyMatch): Check[] {
  const checks: Check[] = [];
  const { namespaces, excludeNamespaces, namespaceSelector, podSelector, resources, qosClasses } = match;
  if (namespaces) {
    const included = globMatcher(namespaces);
    checks.push({ holds: (pod) => included(pod.namespace), reason: (pod) => `namespace ${pod.namespace} is not in namespaces [${namespaces.join(', ')}]` });
  }
  if (excludeNamespaces) {
    const excluded = globMatcher(excludeNamespaces);
    checks.push({ holds: (pod) => !excluded(pod.namespace), reason: (pod) => `namespace ${pod.namespace} is in excludeNamespaces` });
  }
  if (namespaceSelector) {
    checks.push({ holds: (pod) => matchesLabelSelector(namespaceSelector, pod.namespaceLabels), reason: (pod) => `namespace ${pod.namespace}'s labels do not match namespaceSelector` });
  }
  if (podSelector) {
    checks.push({ holds: (pod) => matchesLabelSelector(podSelector, pod.labels), reason: () => "the Pod's labels do not match podSelector" });
  }
  if (resources) {
    checks.push({ holds: (pod) => resources.some((name) => (pod.requests[name] ?? 0) > 0), reason: () => `the Pod requests none of [${resources.join(', ')}]` });
  }
  if (qosClasses) {
    checks.push({ holds: (pod) => qosClasses.includes(pod.qos), reason: (pod) => `QoS class ${pod.qos} is not in qosClasses [${qosClasses.join(', ')}]` });
  }
  return checks;
}

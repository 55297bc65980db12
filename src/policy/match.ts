// A policy's match block compiled once: every given field must hold. The
// namespace fields depend on the namespace alone, so a compiled set asks them
// once per namespace (CompiledPolicySet.candidates) and a decision asks only
// the Pod's own fields. Explain asks which field failed, and only then is the
// reason written.

import { matchesLabelSelector, selectorKeys } from '../kube/selector.ts';
import type { Labels } from '../kube/types.ts';
import type { ResourceList } from '../kube/quantity.ts';
import type { PodContext } from './context.ts';
import { globMatcher } from './glob.ts';
import type { PolicyMatch } from './types.ts';

/** What the namespace checks read: the namespace and its labels. */
export interface NamespaceFacts {
  readonly namespace: string;
  readonly namespaceLabels: Labels;
}

export interface Matcher {
  /** Whether the namespace fields (namespaces, excludeNamespaces, namespaceSelector) hold. */
  namespaceMatches(namespace: NamespaceFacts): boolean;
  /** Whether the Pod's own fields (podSelector, resources, qosClasses) hold: the rest of matches(). */
  podMatches(pod: PodContext): boolean;
  /** Why the Pod does not match (the first field that fails), or undefined when it does. */
  whyNot(pod: PodContext): string | undefined;
  /** The Pod's label keys podSelector reads. */
  readonly podLabels: readonly string[];
}

interface Check<Facts> {
  holds(facts: Facts): boolean;
  reason(facts: Facts): string;
}

export function compileMatch(match: PolicyMatch | undefined): Matcher {
  const namespaceChecks = match ? compileNamespaceChecks(match) : [];
  const podChecks = match ? compilePodChecks(match) : [];
  return {
    namespaceMatches: (namespace) => namespaceChecks.every((check) => check.holds(namespace)),
    podMatches: (pod) => podChecks.every((check) => check.holds(pod)),
    whyNot: (pod) => firstFailure(namespaceChecks, pod) ?? firstFailure(podChecks, pod),
    podLabels: match?.podSelector ? selectorKeys(match.podSelector) : [],
  };
}

function firstFailure<Facts>(checks: readonly Check<Facts>[], facts: Facts): string | undefined {
  return checks.find((check) => !check.holds(facts))?.reason(facts);
}

function compileNamespaceChecks({
  namespaces,
  excludeNamespaces,
  namespaceSelector,
}: PolicyMatch): Check<NamespaceFacts>[] {
  const checks: Check<NamespaceFacts>[] = [];
  if (namespaces) {
    const included = globMatcher(namespaces);
    checks.push({
      holds: (facts) => included(facts.namespace),
      reason: (facts) => `namespace ${facts.namespace} is not in namespaces [${namespaces.join(', ')}]`,
    });
  }
  if (excludeNamespaces) {
    const excluded = globMatcher(excludeNamespaces);
    checks.push({
      holds: (facts) => !excluded(facts.namespace),
      reason: (facts) => `namespace ${facts.namespace} is in excludeNamespaces`,
    });
  }
  if (namespaceSelector) {
    checks.push({
      holds: (facts) => matchesLabelSelector(namespaceSelector, facts.namespaceLabels),
      reason: (facts) => `namespace ${facts.namespace}'s labels do not match namespaceSelector`,
    });
  }
  return checks;
}

function compilePodChecks({ podSelector, resources, qosClasses }: PolicyMatch): Check<PodContext>[] {
  const checks: Check<PodContext>[] = [];
  if (podSelector) {
    checks.push({
      holds: (pod) => matchesLabelSelector(podSelector, pod.labels),
      reason: () => "the Pod's labels do not match podSelector",
    });
  }
  if (resources) {
    checks.push({
      holds: (pod) => requestsAny(pod.requests, resources),
      reason: () => `the Pod requests none of [${resources.join(', ')}]`,
    });
  }
  if (qosClasses) {
    checks.push({
      holds: (pod) => qosClasses.includes(pod.qos),
      reason: (pod) => `QoS class ${pod.qos} is not in qosClasses [${qosClasses.join(', ')}]`,
    });
  }
  return checks;
}

/** Whether any of `names` is requested; a loop, not some(): no closure per Pod. */
function requestsAny(requests: ResourceList, names: readonly string[]): boolean {
  for (const name of names) if ((requests[name] ?? 0) > 0) return true;
  return false;
}

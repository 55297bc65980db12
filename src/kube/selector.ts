// LabelSelector matching (metav1.LabelSelector) over plain labels, as
// labels.SelectorFromSet + matchExpressions evaluate it: every part must hold,
// and an empty selector matches everything.

import type { LabelSelector, LabelSelectorRequirement, Labels } from './types.ts';

export function matchesLabelSelector(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    if (!matchesLabelRequirement(requirement, labels)) return false;
  }
  return true;
}

function matchesLabelRequirement(requirement: LabelSelectorRequirement, labels: Labels): boolean {
  const value = Object.hasOwn(labels, requirement.key) ? labels[requirement.key] : undefined;
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    default:
      return false;
  }
}

// LabelSelector matching (metav1.LabelSelector) over plain labels, as
// labels.SelectorFromSet + matchExpressions evaluate it: every part must hold,
// and an empty selector matches everything.

import type { LabelSelector, LabelSelectorRequirement, Labels } from './types.ts';

/** Read-only, so that a loaded policy's selector is matched as it is. */
type Requirement = Readonly<Omit<LabelSelectorRequirement, 'values'>> & { readonly values?: readonly string[] };
interface Selector {
  readonly matchLabels?: Readonly<NonNullable<LabelSelector['matchLabels']>>;
  readonly matchExpressions?: readonly Requirement[];
}

/** The label keys a selector reads: whatever the other labels hold, its answer is the same. */
export function selectorKeys(selector: Selector): string[] {
  return [...Object.keys(selector.matchLabels ?? {}), ...(selector.matchExpressions ?? []).map(({ key }) => key)];
}

export function matchesLabelSelector(selector: Selector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    if (!matchesLabelRequirement(requirement, labels)) return false;
  }
  return true;
}

function matchesLabelRequirement(requirement: Requirement, labels: Labels): boolean {
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

// The loader reads the TypeBox schema with its own walker (src/policy/schema/check.ts), which takes a
// string's pattern as the editors' approximation of an exact refinement: every patterned string of the
// policy schema must carry one, or the loader would accept what the published schemas refuse.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refinement } from '../../../../src/api/schema/refine.ts';
import { policyDocument } from '../../../../src/api/v1alpha1/schedulingpolicy.ts';

type Node = Record<string | symbol, any>;

/** Checked by their requirement's refinement, with the operator in hand (In: a label value; Gt: an integer). */
const checkedByParent = new Set([
  '.spec.rules.nodeLabels.required[].values[]',
  '.spec.rules.nodeLabels.preferred[].requirements[].values[]',
]);

function unrefinedPatterns(node: Node, path: string, found: string[]): string[] {
  if (node.pattern !== undefined && !node[refinement] && !checkedByParent.has(path)) found.push(path);
  for (const [key, child] of Object.entries((node.properties ?? {}) as Node))
    unrefinedPatterns(child, `${path}.${key}`, found);
  if (node.items) unrefinedPatterns(node.items, `${path}[]`, found);
  if (typeof node.additionalProperties === 'object') unrefinedPatterns(node.additionalProperties, `${path}{}`, found);
  if (node.propertyNames) unrefinedPatterns(node.propertyNames, `${path}{key}`, found);
  return found;
}

test('every patterned string of the policy schema has an exact check in the loader', () => {
  assert.deepEqual(unrefinedPatterns(policyDocument, '', []), []);
});

test('the search finds a patterned string without one', () => {
  const bare = { type: 'object', properties: { zone: { type: 'string', pattern: '^a$' } } };
  assert.deepEqual(unrefinedPatterns(bare, 'rules', []), ['rules.zone']);
});

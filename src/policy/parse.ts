// YAML (or JSON) text → validated, defaulted SchedulingPolicies, with every
// problem located at its node as `file:line:col: message`. Pure: the files are
// read by src/sources/policies/files.ts.

import type { PolicyError } from './errors.ts';
import { formatLocation } from './errors.ts';
import { checkDocument } from './schema/check.ts';
import { didYouMean } from './schema/hint.ts';
import type { Issue, Path } from '../api/schema/issue.ts';
import { isPlainMap } from '../api/schema/issue.ts';
import { describeIssue, locatedErrors, readYamlDocuments } from './schema/located.ts';
import { policyDocument, SCHEDULING_POLICY, type PolicyDocument } from '../api/v1alpha1/schedulingpolicy.ts';
import type { SchedulingPolicy, SourceLocation } from './types.ts';

export interface PolicySet {
  readonly policies: SchedulingPolicy[];
  readonly errors: PolicyError[];
}

const LIST_KINDS = new Set(['List', 'SchedulingPolicyList']);

/**
 * Policies in one file, and in all the files of a set: far past any real set (tens to hundreds), and what bounds
 * the work and memory of a load (one policy file of a million empty documents took a minute and 1.3 GB).
 */
export const MAX_POLICIES = 1_000;
/** YAML documents in one file, empty ones included. */
export const MAX_DOCUMENTS = 1_000;

/** Every document of a YAML stream; a `kind: List` (or SchedulingPolicyList) contributes its items. */
export function parsePolicies(text: string, file: string): PolicySet {
  const { documents, errors } = readYamlDocuments(text, file, MAX_DOCUMENTS);
  const policies: SchedulingPolicy[] = [];
  let objects = 0;
  for (const { value, locate } of documents) {
    for (const [path, object] of documentsIn(value)) {
      if (++objects > MAX_POLICIES) {
        errors.push({
          ...locate(path),
          message: `more than ${MAX_POLICIES} policies in one file: the rest is not read`,
        });
        return { policies, errors };
      }
      const checked = check(object, path);
      if ('issues' in checked) errors.push(...locatedErrors(checked.issues, locate));
      else policies.push(toPolicy(checked.document, locate([...path, 'metadata', 'name'])));
    }
  }
  return { policies, errors };
}

/** A SchedulingPolicy object from the API server (the CRD source); errors name `origin` and the field. */
export function policyFromObject(
  object: unknown,
  origin: string,
): { policy?: SchedulingPolicy; errors: PolicyError[] } {
  const checked = check(object, []);
  if ('issues' in checked)
    return {
      errors: checked.issues.map((issue) => ({ file: origin, line: 0, col: 0, message: describeIssue(issue) })),
    };
  const policy = toPolicy(checked.document, { file: origin, line: 0, col: 0 });
  const generation = (object as { metadata?: { generation?: unknown } }).metadata?.generation;
  return { policy: typeof generation === 'number' ? { ...policy, generation } : policy, errors: [] };
}

/** Keeps the first policy of each name; each later one is an error (for merging several sources). */
export function uniqueNames(policies: readonly SchedulingPolicy[]): PolicySet {
  const seen = new Map<string, SchedulingPolicy>();
  const errors: PolicyError[] = [];
  for (const policy of policies) {
    const first = seen.get(policy.name);
    if (first === undefined) {
      seen.set(policy.name, policy);
      continue;
    }
    const where = first.source ? ` (first defined at ${formatLocation(first.source)})` : '';
    errors.push({
      ...(policy.source ?? { file: '', line: 0, col: 0 }),
      message: `metadata.name: duplicate policy name ${JSON.stringify(policy.name)}${where}`,
    });
  }
  return { policies: [...seen.values()], errors };
}

function* documentsIn(value: unknown): Generator<[Path, unknown]> {
  if (isPlainMap(value) && typeof value.kind === 'string' && LIST_KINDS.has(value.kind) && Array.isArray(value.items)) {
    for (const [index, item] of value.items.entries()) yield [['items', index], item];
  } else {
    yield [[], value];
  }
}

function check(value: unknown, path: Path): { document: PolicyDocument } | { issues: Issue[] } {
  const { apiVersion, kind } = SCHEDULING_POLICY;
  if (isPlainMap(value) && typeof value.kind === 'string' && value.kind !== kind) {
    const message = `${value.kind} is not a ${kind}${didYouMean(value.kind, [kind])}: policy files hold only ${apiVersion} ${kind} documents`;
    return { issues: [{ path: [...path, 'kind'], at: 'value', message }] };
  }
  const issues: Issue[] = [];
  const document = checkDocument(policyDocument, value, issues, path);
  return document === undefined ? { issues } : { document };
}

function toPolicy(document: PolicyDocument, source: SourceLocation): SchedulingPolicy {
  const { priority, match, onUnsatisfiable, enforcement, rollout, rules } = document.spec;
  return {
    name: document.metadata.name,
    priority,
    ...(match ? { match } : {}),
    onUnsatisfiable,
    // Left out at their defaults, so that a policy without them is the policy it was.
    ...(enforcement === 'Audit' && { enforcement }),
    ...(rollout.percent < 100 && { rollout }),
    rules,
    source,
  };
}

// The dra rule: a ResourceClaim (or ResourceClaimTemplate) created in a
// namespace a policy with a dra rule matches gets one constraint that makes
// the scheduler pick every device of the claim with the same value of one
// attribute (one PCIe root, one NUMA node), unless it already has one.
// Claims have no Pod facts: a policy's namespace fields decide whether it
// applies; its Pod fields (podSelector, resources, qosClasses) are not asked.

import type { ClaimConstraint, ClaimFacts } from '../kube/claimFacts.ts';
import type { PatchOperation } from '../kube/types.ts';
import type { CompiledPolicySet } from './compiler.ts';
import { pointer } from './patch.ts';
import { ClaimExplainRecorder, SILENT_CLAIM } from './claimRecorder.ts';
import type { Decision } from './types.ts';

/** Device attributes standardised by Kubernetes; a bare name in alignBy is taken to be one of them. */
const STANDARD_DOMAIN = 'resource.kubernetes.io';

interface Constraint {
  readonly requests: readonly string[];
  readonly matchAttribute: string;
}

/** What one matched policy's dra rule comes to. */
type ClaimStep =
  | { readonly kind: 'no requests' }
  | { readonly kind: 'present'; readonly matchAttribute: string }
  | { readonly kind: 'added'; readonly constraint: Constraint };

/** `explain`: also say, per policy, why it did or did not add a constraint (as a DecisionTrace, without nodes). */
export function decideClaim(
  request: ClaimFacts,
  compiled: CompiledPolicySet,
  options: { readonly explain?: boolean } = {},
): Decision {
  const matched = compiled.candidates(request.namespace).filter(({ policy }) => policy.rules.dra !== undefined);
  const explain = options.explain ? new ClaimExplainRecorder(compiled, matched, request.namespace) : undefined;
  const recorder = explain ?? SILENT_CLAIM;
  const applied: string[] = [];
  const warnings: string[] = [];
  const added: Constraint[] = [];
  for (const { policy } of matched) {
    const step = claimStep(request, policy.rules.dra!.alignBy, added);
    if (step.kind === 'no requests') {
      warnings.push(`policy ${policy.name}: dra dropped: the ${request.kind} has no named device requests`);
      recorder.policy(policy.name, 'unchanged', 'dropped: no named device requests');
    } else if (step.kind === 'present') {
      const { matchAttribute } = step;
      warnings.push(`policy ${policy.name} matched but changed nothing: the claim already aligns by ${matchAttribute}`);
      recorder.policy(
        policy.name,
        'unchanged',
        `already present: a constraint on ${matchAttribute} over these requests`,
      );
    } else {
      const { matchAttribute, requests } = step.constraint;
      added.push(step.constraint);
      applied.push(policy.name);
      recorder.policy(
        policy.name,
        'applied',
        `constraint matchAttribute ${matchAttribute} over [${requests.join(', ')}]`,
      );
    }
  }
  return {
    allowed: true,
    patch: constraintsPatch(request, added),
    warnings,
    auditAnnotations:
      applied.length > 0 ? { policies: applied.join(','), placement: `${added.length} dra constraint` } : {},
    applied,
    matched: matched.map(({ policy }) => policy.name),
    ...(explain && { trace: explain.trace(request, warnings) }),
  };
}

/** One policy's dra rule over the claim, after the constraints the policies before it `added`. */
function claimStep(request: ClaimFacts, alignBy: string, added: readonly Constraint[]): ClaimStep {
  const matchAttribute = qualified(alignBy);
  const names = request.requestNames;
  if (names.length === 0) return { kind: 'no requests' };
  const constraint: Constraint = { requests: names, matchAttribute };
  if ([...request.constraints, ...added].some((other) => aligns(other, constraint)))
    return { kind: 'present', matchAttribute };
  return { kind: 'added', constraint };
}

/** The constraints added, appended to the claim's list, or as the list when it has none. */
function constraintsPatch(request: ClaimFacts, added: readonly Constraint[]): PatchOperation[] {
  const patch: PatchOperation[] = [];
  if (added.length === 0) return patch;
  const path = pointer([...request.devicesPath, 'constraints']);
  const values = added.map((constraint) => ({
    requests: [...constraint.requests],
    matchAttribute: constraint.matchAttribute,
  }));
  if (request.constraintsListed) for (const value of values) patch.push({ op: 'add', path: `${path}/-`, value });
  else patch.push({ op: 'add', path, value: values });
  return patch;
}

/** An existing constraint covers the new one: same attribute, over all requests (none named) or the same ones. */
function aligns(existing: ClaimConstraint | Constraint, wanted: Constraint): boolean {
  if (existing.matchAttribute !== wanted.matchAttribute) return false;
  const requests = existing.requests;
  if (requests.length === 0) return true;
  return requests.length === wanted.requests.length && wanted.requests.every((name) => requests.includes(name));
}

function qualified(name: string): string {
  return name.includes('/') ? name : `${STANDARD_DOMAIN}/${name}`;
}

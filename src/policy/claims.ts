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
import type { DecisionTrace, PolicyTrace } from './explain.ts';
import type { Decision } from './types.ts';

/** Device attributes standardised by Kubernetes; a bare name in alignBy is taken to be one of them. */
const STANDARD_DOMAIN = 'resource.kubernetes.io';

interface Constraint {
  readonly requests: readonly string[];
  readonly matchAttribute: string;
}

/** `explain`: also say, per policy, why it did or did not add a constraint (as a DecisionTrace, without nodes). */
export function decideClaim(
  request: ClaimFacts,
  compiled: CompiledPolicySet,
  options: { readonly explain?: boolean } = {},
): Decision {
  const matched = compiled.candidates(request.namespace).filter(({ policy }) => policy.rules.dra !== undefined);
  const traces: PolicyTrace[] = [];
  const trace = (name: string, outcome: PolicyTrace['outcome'], detail: string) =>
    options.explain &&
    traces.push({
      policy: name,
      priority: compiled.policies.find(({ policy }) => policy.name === name)?.policy.priority ?? 0,
      matched: outcome !== 'not matched',
      ...(outcome === 'not matched' && { reason: detail }),
      outcome,
      rules:
        outcome === 'not matched'
          ? []
          : [
              {
                rule: 'dra',
                outcome: outcome === 'applied' ? 'added' : 'unchanged',
                detail: [detail],
                nodesBefore: 0,
                nodesAfter: 0,
              },
            ],
      nodesBefore: 0,
      nodesAfter: 0,
    });
  if (options.explain)
    for (const { policy } of compiled.policies)
      if (!matched.some((candidate) => candidate.policy === policy))
        trace(
          policy.name,
          'not matched',
          policy.rules.dra ? `its namespace fields do not match ${request.namespace}` : 'has no dra rule',
        );
  const names = request.requestNames;
  const existing = request.constraints;
  const patch: PatchOperation[] = [];
  const applied: string[] = [];
  const warnings: string[] = [];
  const added: Constraint[] = [];
  for (const { policy } of matched) {
    const matchAttribute = qualified(policy.rules.dra!.alignBy);
    if (names.length === 0) {
      warnings.push(`policy ${policy.name}: dra dropped: the ${request.kind} has no named device requests`);
      trace(policy.name, 'unchanged', 'dropped: no named device requests');
      continue;
    }
    const constraint: Constraint = { requests: names, matchAttribute };
    if ([...existing, ...added].some((other) => aligns(other, constraint))) {
      warnings.push(`policy ${policy.name} matched but changed nothing: the claim already aligns by ${matchAttribute}`);
      trace(policy.name, 'unchanged', `already present: a constraint on ${matchAttribute} over these requests`);
      continue;
    }
    added.push(constraint);
    applied.push(policy.name);
    trace(policy.name, 'applied', `constraint matchAttribute ${matchAttribute} over [${names.join(', ')}]`);
  }
  if (added.length > 0) {
    const path = pointer([...request.devicesPath, 'constraints']);
    const values = added.map((constraint) => ({
      requests: [...constraint.requests],
      matchAttribute: constraint.matchAttribute,
    }));
    if (request.constraintsListed) for (const value of values) patch.push({ op: 'add', path: `${path}/-`, value });
    else patch.push({ op: 'add', path, value: values });
  }
  return {
    allowed: true,
    patch,
    warnings,
    auditAnnotations:
      applied.length > 0 ? { policies: applied.join(','), placement: `${added.length} dra constraint` } : {},
    applied,
    matched: matched.map(({ policy }) => policy.name),
    ...(options.explain && { trace: claimTrace(request, compiled.snapshotId, traces, warnings) }),
  };
}

function claimTrace(
  request: ClaimFacts,
  snapshot: string,
  policies: PolicyTrace[],
  warnings: readonly string[],
): DecisionTrace {
  const { name } = request;
  return {
    pod: name,
    namespace: request.namespace,
    workload: `${request.namespace}/${request.kind}/${name}`,
    snapshot,
    nodes: { total: 0, schedulable: 0, podPlacement: 0 },
    policies,
    finalNodes: 0,
    allowed: true,
    warnings,
  };
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

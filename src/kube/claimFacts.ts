// A ResourceClaim or ResourceClaimTemplate as the dra rule reads it, parsed
// once at the boundary (admission, CLI): the names of its device requests,
// the constraints it already has, and where its devices are. The core reads
// these facts only, never the raw claim.

import { isRecord, recordsOf } from './json.ts';

export type ClaimKind = 'ResourceClaim' | 'ResourceClaimTemplate';

/** A constraint the claim already has; a field of another type than the API's reads as undefined. */
export interface ClaimConstraint {
  readonly matchAttribute: string | undefined;
  /** The request names it covers (an entry that is not a string is kept as undefined: it still counts). */
  readonly requests: readonly (string | undefined)[];
}

export interface ClaimFacts {
  readonly kind: ClaimKind;
  readonly namespace: string;
  /** metadata.name, else metadata.generateName, else empty. */
  readonly name: string;
  /** The path of the devices object: spec.devices, or spec.spec.devices in a template. */
  readonly devicesPath: readonly string[];
  /** The non-empty names of its device requests. */
  readonly requestNames: readonly string[];
  readonly constraints: readonly ClaimConstraint[];
  /** devices.constraints is an array: new constraints are appended to it. */
  readonly constraintsListed: boolean;
}

/** The claim kind of a resource.k8s.io ResourceClaim or ResourceClaimTemplate (any version); else undefined. */
export function claimKindOf(object: { readonly apiVersion?: unknown; readonly kind?: unknown }): ClaimKind | undefined {
  const group = typeof object.apiVersion === 'string' ? object.apiVersion.split('/')[0] : undefined;
  if (group !== 'resource.k8s.io') return undefined;
  return object.kind === 'ResourceClaim' || object.kind === 'ResourceClaimTemplate' ? object.kind : undefined;
}

export function claimFacts(claim: unknown, kind: ClaimKind, namespace: string): ClaimFacts {
  const devicesPath = kind === 'ResourceClaimTemplate' ? ['spec', 'spec', 'devices'] : ['spec', 'devices'];
  const devices = at(claim, devicesPath);
  const metadata = isRecord(claim) && isRecord(claim.metadata) ? claim.metadata : undefined;
  return {
    kind,
    namespace,
    name: String(metadata?.name ?? metadata?.generateName ?? ''),
    devicesPath,
    requestNames: recordsOf(devices?.requests)
      .map((entry) => entry.name as unknown)
      .filter((name): name is string => typeof name === 'string' && name !== ''),
    constraints: recordsOf(devices?.constraints).map(constraint),
    constraintsListed: Array.isArray(devices?.constraints),
  };
}

function constraint(entry: Record<string, unknown>): ClaimConstraint {
  const requests: unknown[] = Array.isArray(entry.requests) ? entry.requests : [];
  return {
    matchAttribute: typeof entry.matchAttribute === 'string' ? entry.matchAttribute : undefined,
    requests: requests.map((name) => (typeof name === 'string' ? name : undefined)),
  };
}

function at(object: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let node: unknown = object;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return isRecord(node) ? node : undefined;
}

// Which requests the dra rule decides: a ResourceClaim or ResourceClaimTemplate
// (resource.k8s.io, any version) being created.

import type { KubeObject } from '../kube/types.ts';
import type { ClaimKind, ClaimRequest } from '../policy/claims.ts';
import type { AdmissionRequest } from './review.ts';

const KINDS: Readonly<Record<string, ClaimKind>> = {
  ResourceClaim: 'ResourceClaim',
  ResourceClaimTemplate: 'ResourceClaimTemplate',
  resourceclaims: 'ResourceClaim',
  resourceclaimtemplates: 'ResourceClaimTemplate',
};

/** The claim request, when this is the CREATE of one; else undefined. */
export function claimCreate(request: AdmissionRequest): ClaimRequest | undefined {
  if (request.operation !== 'CREATE' || request.subResource) return undefined;
  const { kind, resource } = request;
  const group = kind ? kind.group : resource?.group;
  const name = kind ? kind.kind : resource?.resource;
  const claimKind = group === 'resource.k8s.io' && name !== undefined ? KINDS[name] : undefined;
  if (claimKind === undefined || typeof request.object !== 'object' || request.object === null) return undefined;
  const claim = request.object as KubeObject;
  const own = claim.metadata?.namespace;
  const namespace = request.namespace || (typeof own === 'string' && own) || 'default';
  return { kind: claimKind, claim, namespace };
}

// Which requests the dra rule decides: a ResourceClaim or ResourceClaimTemplate
// (resource.k8s.io, any version) being created.

import { isRecord } from '../kube/json.ts';
import { claimFacts, type ClaimFacts, type ClaimKind } from '../kube/claimFacts.ts';
import type { AdmissionRequest } from './review.ts';

const KINDS: Readonly<Record<string, ClaimKind>> = {
  ResourceClaim: 'ResourceClaim',
  ResourceClaimTemplate: 'ResourceClaimTemplate',
  resourceclaims: 'ResourceClaim',
  resourceclaimtemplates: 'ResourceClaimTemplate',
};

/** The claim's facts, when this is the CREATE of one; else undefined. */
export function claimCreate(request: AdmissionRequest): ClaimFacts | undefined {
  if (request.operation !== 'CREATE' || request.subResource) return undefined;
  const { kind, resource } = request;
  const group = kind ? kind.group : resource?.group;
  const name = kind ? kind.kind : resource?.resource;
  const claimKind = group === 'resource.k8s.io' && name !== undefined ? KINDS[name] : undefined;
  const object: unknown = request.object;
  if (claimKind === undefined || typeof object !== 'object' || object === null) return undefined;
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : undefined;
  const own: unknown = metadata?.namespace;
  const namespace = request.namespace || (typeof own === 'string' && own) || 'default';
  return claimFacts(object, claimKind, namespace);
}

// Which requests topogate decides: a Pod being created, not one of its
// subresources (binding, ephemeralcontainers, status, …).

import type { Pod } from '../kube/types.ts';
import type { AdmissionRequest } from './review.ts';

export function isPodCreate(request: AdmissionRequest): boolean {
  return request.operation === 'CREATE' && !request.subResource && isPod(request);
}

function isPod({ kind, resource }: AdmissionRequest): boolean {
  if (kind) return (kind.group ?? '') === '' && kind.kind === 'Pod';
  return (resource?.group ?? '') === '' && resource?.resource === 'pods';
}

/** The request's namespace, else the Pod's, else "default" (as the API server would default it). */
export function podNamespace(request: AdmissionRequest): string {
  const pod = request.object as Pod | undefined;
  const fromPod = pod?.metadata?.namespace;
  return request.namespace || (typeof fromPod === 'string' && fromPod) || 'default';
}

// Who this topogate process is, for Lease holders and its heartbeat Lease's
// name: the Pod's name in a cluster (its hostname), with the pid outside one
// (several processes on one machine), as a DNS label.

import { hostname } from 'node:os';

/** The Pod this process runs in (POD_NAME and POD_UID from the downward API), to own what it leaves behind. */
export interface PodOwner {
  readonly name: string;
  readonly uid: string;
}

export function podOwner(env: NodeJS.ProcessEnv): PodOwner | undefined {
  const { POD_NAME: name, POD_UID: uid } = env;
  return name && uid ? { name, uid } : undefined;
}

export function processIdentity(inCluster: boolean): string {
  const host =
    hostname()
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-')
      .replace(/^-+|-+$/g, '') || 'topogate';
  return (inCluster ? host : `${host}-${process.pid}`).slice(0, 40).replace(/-+$/, '');
}

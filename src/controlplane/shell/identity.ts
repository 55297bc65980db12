// Who this topogate process is, for Lease holders and its heartbeat Lease's
// name: the Pod's name in a cluster (its hostname), with the pid outside one
// (several processes on one machine), as a DNS label.

import { hostname } from 'node:os';

export function processIdentity(inCluster: boolean): string {
  const host =
    hostname()
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-')
      .replace(/^-+|-+$/g, '') || 'topogate';
  return (inCluster ? host : `${host}-${process.pid}`).slice(0, 40).replace(/-+$/, '');
}

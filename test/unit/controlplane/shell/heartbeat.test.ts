// The heartbeat Lease is its Pod's dependent when the Pod is known (POD_NAME and POD_UID), so the garbage
// collector removes it with the Pod; outside a Pod it has no owner.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import type { V1Lease } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loopbackKubeConfig } from '../../sources/loopback-kubeconfig.ts';
import { Heartbeat } from '../../../../src/controlplane/shell/heartbeat.ts';
import { podOwner, type PodOwner } from '../../../../src/controlplane/shell/identity.ts';

/** Starts a heartbeat against an API server that has no Lease yet; resolves to the Lease it creates. */
async function createdLease(owner: PodOwner | undefined): Promise<V1Lease> {
  let created: V1Lease | undefined;
  let renewed: () => void = () => undefined;
  // After its first renewal the heartbeat only waits for its next beat: a quiet moment to stop it in.
  const quiet = new Promise<void>((resolve) => (renewed = resolve));
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.method === 'POST') created = JSON.parse(body) as V1Lease;
      if (request.method === 'PUT') renewed();
      const known = created !== undefined && request.method !== 'DELETE';
      response.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
      response.end(known ? JSON.stringify(created) : JSON.stringify({ kind: 'Status', code: 404, status: 'Failure' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = loopbackKubeConfig(server);
  const heartbeat = new Heartbeat(config, {
    namespace: 'topogate-system',
    name: 'topogate-heartbeat-web-1',
    intervalMs: 60_000,
    windowMs: 60_000,
    log: pino({ level: 'silent' }),
    ...(owner && { owner }),
  });
  heartbeat.start();
  try {
    await quiet;
  } finally {
    await heartbeat.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  assert.ok(created, 'the heartbeat created its Lease');
  return created;
}

test('in a Pod, the heartbeat Lease is owned by it', async () => {
  const owner = podOwner({ POD_NAME: 'topogate-7d9f-abcde', POD_UID: '0b6f1c2e-1111-4e7a-9c55-3f2d1a0e9b7c' });
  assert.ok(owner);
  const lease = await createdLease(owner);
  assert.deepEqual(lease.metadata?.ownerReferences, [
    { apiVersion: 'v1', kind: 'Pod', name: 'topogate-7d9f-abcde', uid: '0b6f1c2e-1111-4e7a-9c55-3f2d1a0e9b7c' },
  ]);
});

test('outside a Pod (no POD_NAME or no POD_UID), the Lease has no owner', async () => {
  assert.equal(podOwner({ POD_NAME: 'topogate-7d9f-abcde' }), undefined);
  assert.equal(podOwner({ POD_UID: '0b6f1c2e-1111-4e7a-9c55-3f2d1a0e9b7c' }), undefined);
  const lease = await createdLease(undefined);
  assert.equal(lease.metadata?.name, 'topogate-heartbeat-web-1');
  assert.equal(lease.metadata?.ownerReferences, undefined);
});

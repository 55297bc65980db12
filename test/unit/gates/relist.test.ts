// The placement controller's watch of unbound Pods is the shared informer: when the API server fails, it lists
// again after a doubling, capped backoff (it once retried every second, forever, whatever the failure).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { startPlacementController } from '../../../src/gates/controller.ts';
import { fakeApi, until } from '../kube-client/fake-api.ts';

test('a failing list of unbound Pods is retried after a growing backoff', async () => {
  const lease = { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', metadata: { name: 'topogate-placement' } };
  const api = await fakeApi({
    'GET /apis/coordination.k8s.io/v1/namespaces/topogate/leases/topogate-placement': [{ status: 404 }],
    'POST /apis/coordination.k8s.io/v1/namespaces/topogate/leases': [{ status: 201, body: lease }],
    'GET /api/v1/pods': [{ status: 500 }],
  });
  const retries: number[] = [];
  const log = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        const { retryInMs } = JSON.parse(line) as { retryInMs?: number };
        if (retryInMs !== undefined) retries.push(retryInMs);
      },
    },
  );
  const controller = startPlacementController({
    config: api.config,
    place: () => ({ wait: 'never asked' }),
    subscribe: () => () => undefined,
    deferMaxMs: 60_000,
    leaseNamespace: 'topogate',
    log,
    registry: new Registry(),
    relistBackoff: { initialMs: 5, maxMs: 40, jitter: 0 },
  });
  try {
    await until(() => retries.length >= 6, 'six failed lists', api.seen);
    assert.deepEqual(retries.slice(0, 6), [5, 10, 20, 40, 40, 40]);
    assert.ok(api.seen.filter((request) => request === 'GET /api/v1/pods').length >= 6);
  } finally {
    await controller.stop();
    await api.close();
  }
});

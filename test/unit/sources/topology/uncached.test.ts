// serve's live topology keeps no copy of the objects it lists and watches (keepObjects off): the model's facts
// are the one copy, and a relist after 410 Gone still brings the model to the list, a Node gone dropped from it.
// `topogate snapshot` keeps them (keepObjects on), since it writes them out.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createKubeTopology } from '../../../../src/sources/topology/kube.ts';
import type { TopologySnapshot } from '../../../../src/topology/model.ts';
import { type Answer, fakeApi, until } from '../../kube-client/fake-api.ts';
import { loopbackKubeConfigFile } from '../loopback-kubeconfig.ts';

const list = (resourceVersion: string, items: unknown[] = []) => ({
  status: 200,
  body: { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion }, items },
});
const node = (name: string, resourceVersion: string, zone: string) => ({
  metadata: { name, resourceVersion, labels: { 'topology.kubernetes.io/zone': zone } },
});
const gone = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', code: 410, reason: 'Expired' } };
const quiet = ['/api/v1/namespaces', '/apis/discovery.k8s.io/v1/endpointslices', '/api/v1/pods'].concat(
  '/api/v1/namespaces/kube-system/pods',
);

async function withTopology(
  keepObjects: boolean,
  check: (topology: ReturnType<typeof createKubeTopology>) => Promise<void>,
) {
  const answers: Record<string, Answer[]> = {
    'GET /api/v1/nodes': [
      list('5', [node('a', '1', 'z1'), node('b', '2', 'z1')]),
      list('9', [node('b', '2', 'z1'), node('c', '8', 'z2')]),
    ],
    'GET /api/v1/nodes watch': [
      { events: [{ type: 'MODIFIED', object: { kind: 'Node', apiVersion: 'v1', ...node('a', '6', 'z2') } }, gone] },
      'hold',
    ],
  };
  for (const path of quiet) {
    answers[`GET ${path}`] = [list('1')];
    answers[`GET ${path} watch`] = ['hold'];
  }
  const api = await fakeApi(answers);
  const dir = mkdtempSync(join(tmpdir(), 'uncached-'));
  const kubeconfig = loopbackKubeConfigFile(api.config.getCurrentCluster()!.server, dir);
  const topology = createKubeTopology({
    kubeconfig,
    etcdMetrics: [],
    keepObjects,
    log: pino({ level: 'silent' }),
    registry: new Registry(),
    timing: { backoffMs: 60_000, maxBackoffMs: 60_000, absentRecheckMs: 60_000 },
  });
  try {
    await check(topology);
    await until(() => api.seen.filter((key) => key === 'GET /api/v1/nodes').length === 2, 'the relist', api.seen);
    const names = (snapshot: TopologySnapshot) => ['a', 'b', 'c'].filter((name) => snapshot.nodes.get(name));
    await until(() => names(topology.current()).join() === 'b,c', 'the relisted Nodes in the model', api.seen);
    assert.equal(topology.current().nodes.get('c')?.labels['topology.kubernetes.io/zone'], 'z2');
  } finally {
    await topology.stop();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('without keepObjects, a relist after 410 Gone brings the model to the list, and no object is kept', async () => {
  await withTopology(false, async (topology) => {
    await topology.ready(15_000);
    assert.deepEqual(topology.objects().get('nodes'), []);
    assert.deepEqual(topology.objects().get('pods'), []);
  });
});

test('with keepObjects, the listed objects are kept for objects()', async () => {
  await withTopology(true, async (topology) => {
    await topology.ready(15_000);
    const kept = topology.objects().get('nodes') ?? [];
    assert.ok(
      kept.some((object) => object.metadata?.name === 'b'),
      JSON.stringify(kept),
    );
  });
});

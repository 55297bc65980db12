// A topology source whose CRD is missing watches for that CRD: installed after serve started, it is listed
// as soon as the API server establishes it, not at the next recheck (here ten minutes away).

import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { test } from 'node:test';
import pino from 'pino';
import { loopbackKubeConfig } from '../loopback-kubeconfig.ts';
import { Registry } from 'prom-client';
import { createTopologyMetrics } from '../../../../src/sources/topology/metrics.ts';
import { SourceWatch, type WatchSink } from '../../../../src/sources/topology/watch.ts';
import { WATCHES } from '../../../../src/sources/topology/watches.ts';

const CRD = 'networktopologies.topogate.dev';
const crdEvent = (type: string, established: boolean) =>
  `${JSON.stringify({
    type,
    object: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: CRD, resourceVersion: established ? '2' : '1' },
      status: { conditions: [{ type: 'Established', status: established ? 'True' : 'False' }] },
    },
  })}\n`;

test('a missing CRD is watched, and its arrival lists the source at once', async () => {
  let installed = false;
  const crdWatches: { url: string; response: ServerResponse }[] = [];
  const lists: number[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('');
      crdWatches.push({ url: request.url ?? '', response });
      return;
    }
    if (url.pathname === '/apis/topogate.dev/v1alpha1/networktopologies') {
      if (!installed) {
        response.writeHead(404, { 'content-type': 'application/json' });
        return void response.end(
          '{"kind":"Status","code":404,"reason":"NotFound","message":"the server could not find the requested resource"}',
        );
      }
      if (url.searchParams.get('watch') === 'true') return void response.writeHead(200).write('');
      lists.push(Date.now());
      response.writeHead(200, { 'content-type': 'application/json' });
      return void response.end(
        '{"kind":"NetworkTopologyList","apiVersion":"topogate.dev/v1alpha1","metadata":{"resourceVersion":"5"},"items":[]}',
      );
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = loopbackKubeConfig(server);
  const events: string[] = [];
  const sink: WatchSink = {
    apply: () => {},
    startList: () => {
      let objects = 0;
      return { page: (page) => void (objects += page.length), end: () => void events.push(`replace ${objects}`) };
    },
    disable: (_, reason) => void events.push(`disable ${reason}`),
    fail: (_, error) => void events.push(`fail ${error}`),
  };
  const spec = WATCHES.find((watch) => watch.source === 'networkTopologies')!;
  const watch = new SourceWatch(spec, config, sink, createTopologyMetrics(new Registry()), pino({ level: 'silent' }), {
    backoffMs: 10,
    maxBackoffMs: 100,
    absentRecheckMs: 600_000,
  });
  const until = async (done: () => boolean, what: string) => {
    for (let waited = 0; !done(); waited += 20) {
      assert.ok(waited < 15_000, `${what}: ${events.join('; ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  try {
    watch.start();
    await until(() => crdWatches.length > 0, 'the CRD is watched');
    assert.deepEqual(events, [`disable CRD ${CRD} not installed`]);
    assert.match(decodeURIComponent(crdWatches[0]!.url), new RegExp(`fieldSelector=metadata\\.name=${CRD}`));

    installed = true;
    crdWatches[0]!.response.write(crdEvent('ADDED', false));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(lists.length, 0, 'not before the API server establishes it');
    crdWatches[0]!.response.write(crdEvent('MODIFIED', true));
    await until(() => events.includes('replace 0'), 'listed once established');
    assert.equal(crdWatches.length, 1, 'one watch for the CRD');
  } finally {
    await watch.stop();
    for (const { response } of crdWatches) response.end();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

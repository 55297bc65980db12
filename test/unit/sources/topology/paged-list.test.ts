// A source's list follows the API server's pages (limit and continue) and hands the model each object once:
// the informer's own add events for the listed objects are not applied again; the Pods without the finished ones.

import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { loopbackKubeConfig } from '../loopback-kubeconfig.ts';
import { PAGE_LIMIT } from '../../../../src/sources/topology/list.ts';
import { createTopologyMetrics } from '../../../../src/sources/topology/metrics.ts';
import { DEFAULT_TIMING, SourceWatch, type WatchSink } from '../../../../src/sources/topology/watch.ts';
import { WATCHES } from '../../../../src/sources/topology/watches.ts';

const node = (name: string, resourceVersion: string) => ({
  metadata: { name, resourceVersion, managedFields: [{ manager: 'kubelet' }] },
  status: { images: [{ names: ['big'] }], allocatable: { cpu: '4' } },
});

/** A source's watch against the loopback server, started. */
function startWatch(source: string, server: Server, sink: WatchSink): SourceWatch {
  const spec = WATCHES.find((watch) => watch.source === source)!;
  const metrics = createTopologyMetrics(new Registry());
  const watch = new SourceWatch(
    spec,
    loopbackKubeConfig(server),
    sink,
    metrics,
    pino({ level: 'silent' }),
    DEFAULT_TIMING,
  );
  watch.start();
  return watch;
}

/** Until the server holds a watch open (10 s at most); the deadline it waited to. */
async function untilWatching(watches: readonly ServerResponse[]): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (watches.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return deadline;
}

test('the list is taken page by page, slimmed, and each object reaches the model once', async () => {
  const asked: string[] = [];
  const watches: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.searchParams.get('watch') === 'true') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('');
      watches.push(response);
      return;
    }
    asked.push(url.search);
    const page = url.searchParams.get('continue');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'NodeList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '7', ...(page === null && { continue: 'next' }) },
        items: page === null ? [node('a', '1'), node('b', '2')] : [node('c', '3')],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const applied: string[] = [];
  const pages: unknown[][] = [];
  let ends = 0;
  const sink: WatchSink = {
    apply: (_, type, object) => void applied.push(`${type} ${object.metadata?.name}`),
    startList: () => ({ page: (objects) => void pages.push([...objects]), end: () => void ends++ }),
    disable: () => {},
    fail: (_, error) => assert.fail(error),
  };
  const watch = startWatch('nodes', server, sink);
  try {
    const deadline = await untilWatching(watches);
    assert.equal(watches.length, 1, 'the watch started after the list');
    assert.deepEqual(asked, [`?limit=${PAGE_LIMIT}`, `?limit=${PAGE_LIMIT}&continue=next`]);
    assert.equal(ends, 1, 'the list ended once, after its last page');
    const names = (page: unknown[]) => page.map((object) => (object as { metadata: { name: string } }).metadata.name);
    assert.deepEqual(pages.map(names), [['a', 'b'], ['c']], 'each page reached the model as it was parsed');
    const objects = pages.flat() as { kind?: string; metadata: { name: string; managedFields?: unknown } }[];
    assert.equal(objects[0]!.kind, 'Node', 'list items are given their kind');
    assert.equal(objects[0]!.metadata.managedFields, undefined, 'list items are slimmed');
    // The informer reports the listed objects as added: the model has them from the list already.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(applied, []);
    watches[0]!.write(`${JSON.stringify({ type: 'MODIFIED', object: { kind: 'Node', ...node('a', '8') } })}\n`);
    while (applied.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(applied, ['MODIFIED a']);
  } finally {
    await watch.stop();
    for (const response of watches) response.destroy();
    server.closeAllConnections();
    server.close();
  }
});

test("each page's items are slimmed as the page is parsed, not once the whole list is in", async () => {
  const pod = (name: string) => ({
    metadata: { name, namespace: 'a', resourceVersion: '1', managedFields: [{ manager: 'kubelet' }] },
    spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const server = createServer((request, response) => {
    const page = new URL(request.url ?? '/', 'http://x').searchParams.get('continue');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '7', ...(page === null && { continue: 'next' }) },
        items: page === null ? [pod('p1')] : [pod('p2')],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const list = await WATCHES.find((watch) => watch.source === 'pods')!.list(loopbackKubeConfig(server));
    // A Pod is kept as its record: name, namespace and resourceVersion, its usage under a symbol.
    assert.deepEqual(
      list.items.map((item) => [Object.keys(item), item.metadata]),
      ['p1', 'p2'].map((name) => [['metadata'], { name, namespace: 'a', resourceVersion: '1' }]),
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('the Pods are listed and watched without the finished ones, as the scheduler asks for them', async () => {
  const asked: { watch: boolean; fieldSelector: string | null }[] = [];
  const watches: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const watching = url.searchParams.get('watch') === 'true';
    asked.push({ watch: watching, fieldSelector: url.searchParams.get('fieldSelector') });
    response.writeHead(200, { 'content-type': 'application/json' });
    if (watching) {
      response.write('');
      watches.push(response);
      return;
    }
    response.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sink: WatchSink = {
    apply: () => {},
    startList: () => ({ page: () => {}, end: () => {} }),
    disable: () => {},
    fail: (_, e) => assert.fail(e),
  };
  const watch = startWatch('pods', server, sink);
  try {
    await untilWatching(watches);
    assert.deepEqual(asked, [
      { watch: false, fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' },
      { watch: true, fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' },
    ]);
  } finally {
    await watch.stop();
    for (const response of watches) response.destroy();
    server.closeAllConnections();
    server.close();
  }
});

test('a list still paging when its watch stops asks for no further page, and gives up the one it waits for', async () => {
  const asked: string[] = [];
  let waitingClosed: (() => void) | undefined;
  const closed = new Promise<void>((resolve) => (waitingClosed = resolve));
  const server = createServer((request, response) => {
    const page = new URL(request.url ?? '/', 'http://x').searchParams.get('continue');
    asked.push(page ?? 'first');
    if (page !== null) {
      // The second page never comes: only the client can end this request.
      request.on('close', () => waitingClosed?.());
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'NodeList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '7', continue: 'next' },
        items: [node('a', '1')],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const pages: number[] = [];
  const sink: WatchSink = {
    apply: () => {},
    startList: () => ({ page: (objects) => void pages.push(objects.length), end: () => assert.fail('no list ends') }),
    disable: () => {},
    fail: () => {},
  };
  const watch = startWatch('nodes', server, sink);
  try {
    const deadline = Date.now() + 5_000;
    while (asked.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(asked, ['first', 'next']);
    await watch.stop();
    const gaveUp = await Promise.race([closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 5_000))]);
    assert.equal(gaveUp, true, 'the request for the second page was closed by the client');
    assert.deepEqual(pages, [1]);
    assert.deepEqual(asked, ['first', 'next']);
  } finally {
    await watch.stop();
    server.closeAllConnections();
    server.close();
  }
});

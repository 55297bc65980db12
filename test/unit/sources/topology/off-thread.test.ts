// Lists taken in the worker thread (off-thread.ts, list-worker.ts): what crosses back is what the list in this
// thread gave (TLS and token from the kubeconfig, pages in order, a Pod's usage, an API error's code and body), the
// worker runs only a little ahead of the pages being applied, and it ends once no list is running.

import assert from 'node:assert/strict';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { issueCertificates } from '../../../../src/certs/issue.ts';
import { ListError } from '../../../../src/sources/topology/list.ts';
import { listOffThread, onListWorkerExit } from '../../../../src/sources/topology/off-thread.ts';
import type { ListRequest } from '../../../../src/sources/topology/wire.ts';
import { usageOf } from '../../../../src/topology/read/pod-record.ts';
import { loopbackKubeConfig } from '../loopback-kubeconfig.ts';

const PODS: ListRequest = { source: 'pods', apiVersion: 'v1', kind: 'Pod', path: '/api/v1/pods', selectors: {} };
const NODES: ListRequest = { source: 'nodes', apiVersion: 'v1', kind: 'Node', path: '/api/v1/nodes', selectors: {} };

const pod = (name: string, node: string) => ({
  metadata: { name, namespace: 'a', resourceVersion: '1' },
  spec: { nodeName: node, containers: [{ name: 'c', resources: { requests: { cpu: '250m' } } }] },
  status: { phase: 'Running' },
});

/** A list's page of `kind`: its items, and the continue token of the next page, if any. */
function listPage(kind: string, items: readonly unknown[], next: string | undefined): string {
  return JSON.stringify({
    kind,
    apiVersion: 'v1',
    metadata: { resourceVersion: '9', ...(next !== undefined && { continue: next }) },
    items,
  });
}

/** Page `n` of `pages` (0-based): one Node each. */
function nodePage(n: number, pages: number): string {
  const node = { metadata: { name: `n${n}`, resourceVersion: String(n) }, status: { images: [{ names: ['x'] }] } };
  return listPage('NodeList', [node], n + 1 < pages ? String(n + 1) : undefined);
}

async function listening<S extends Server>(server: S): Promise<S> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function closed(server: Server): void {
  server.closeAllConnections();
  server.close();
}

test('over TLS with the kubeconfig’s CA and token, the worker’s pages come in order, a Pod’s usage with them', async () => {
  const certs = issueCertificates({ service: 'api', namespace: 'test', localhost: true });
  const authorizations: (string | undefined)[] = [];
  const server = await listening(
    createHttpsServer({ cert: certs.tlsCert, key: certs.tlsKey }, (request, response) => {
      authorizations.push(request.headers.authorization);
      const page = new URL(request.url ?? '/', 'https://x').searchParams.get('continue');
      response.writeHead(200, { 'content-type': 'application/json' });
      const first = page === null;
      response.end(
        listPage('PodList', first ? [pod('p1', 'n1'), pod('p2', 'n1')] : [pod('p3', 'n2')], first ? 'next' : undefined),
      );
    }),
  );
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: 'tls',
        server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        caData: Buffer.from(certs.caCert).toString('base64'),
      },
    ],
    users: [{ name: 'tls', token: 'secret-token' }],
    contexts: [{ name: 'tls', cluster: 'tls', user: 'tls' }],
    currentContext: 'tls',
  });
  try {
    const pages: string[][] = [];
    const list = await listOffThread(config, PODS, {
      onPage: (items) => void pages.push(items.map((item) => item.metadata!.name!)),
    });
    assert.deepEqual(pages, [['p1', 'p2'], ['p3']]);
    assert.deepEqual(authorizations, ['Bearer secret-token', 'Bearer secret-token']);
    assert.equal(list.metadata?.resourceVersion, '9');
    const usages = list.items.map((item) => usageOf(item));
    assert.deepEqual(
      usages.map((usage) => [usage?.node, usage?.requests]),
      [
        ['n1', { cpu: 250 }],
        ['n1', { cpu: 250 }],
        ['n2', { cpu: 250 }],
      ],
    );
    // The same as a Pod read in this thread gives.
    assert.deepEqual(usages, [pod('p1', 'n1'), pod('p2', 'n1'), pod('p3', 'n2')].map(usageOf));
  } finally {
    closed(server);
  }
});

test('an API error crosses as the ListError it was: its code and body', async () => {
  const server = await listening(
    createHttpServer((_, response) => {
      response.writeHead(410, { 'content-type': 'application/json' });
      response.end('{"kind":"Status","code":410,"reason":"Expired"}');
    }),
  );
  try {
    await assert.rejects(listOffThread(loopbackKubeConfig(server), NODES), (error: unknown) => {
      assert.ok(error instanceof ListError);
      assert.equal(error.code, 410);
      assert.equal(error.body, '{"kind":"Status","code":410,"reason":"Expired"}');
      return true;
    });
  } finally {
    closed(server);
  }
});

test('while a page is being applied the worker takes one more, no further; an abort stops it there', async () => {
  const PAGES = 6;
  const asked: number[] = [];
  const server = await listening(
    createHttpServer((request: IncomingMessage, response: ServerResponse) => {
      const n = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('continue') ?? '0');
      asked.push(n);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(nodePage(n, PAGES));
    }),
  );
  let release: (() => void) | undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const pages: string[] = [];
  try {
    const list = listOffThread(loopbackKubeConfig(server), NODES, {
      onPage: async (items) => {
        pages.push(items[0]!.metadata!.name!);
        if (pages.length === 1) await held;
      },
    });
    const deadline = Date.now() + 5_000;
    while (asked.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    // Given time to run further ahead, it does not.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(asked, [0, 1], 'the page being applied and one more');
    release!();
    const whole = await list;
    assert.deepEqual(pages, ['n0', 'n1', 'n2', 'n3', 'n4', 'n5'], 'every page, in order');
    assert.equal(whole.items.length, PAGES);

    asked.length = 0;
    const aborting = new AbortController();
    const aborted = listOffThread(loopbackKubeConfig(server), NODES, {
      keep: false,
      signal: aborting.signal,
      onPage: async () => {
        aborting.abort();
        await new Promise((resolve) => setTimeout(resolve, 300));
      },
    });
    await assert.rejects(aborted, { name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(asked.length <= 2, `an aborted list asked for pages ${asked.join(', ')}`);
  } finally {
    // A failed assertion must not leave the list waiting on the page held.
    release!();
    closed(server);
  }
});

test('once no list is running the worker ends, and whoever asked is told', async () => {
  const server = await listening(
    createHttpServer((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(nodePage(0, 1));
    }),
  );
  let exits = 0;
  const stop = onListWorkerExit(() => exits++);
  try {
    await listOffThread(loopbackKubeConfig(server), NODES);
    const deadline = Date.now() + 10_000;
    while (exits === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(exits, 1);
  } finally {
    stop();
    closed(server);
  }
});

test('through a kubeconfig’s proxy the list stays in this thread and goes by the proxy', async () => {
  const tunnels: string[] = [];
  const asked: string[] = [];
  // The API server named does not exist: only the proxy's tunnel reaches this one.
  const api = createHttpServer((request, response) => {
    asked.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(nodePage(0, 1));
  });
  const proxy = await listening(createHttpServer());
  proxy.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    tunnels.push(request.url ?? '');
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) socket.unshift(head);
    api.emit('connection', socket);
  });
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: 'behind',
        server: 'http://api.topogate.invalid:6443',
        skipTLSVerify: true,
        proxyUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      },
    ],
    users: [{ name: 'behind' }],
    contexts: [{ name: 'behind', cluster: 'behind', user: 'behind' }],
    currentContext: 'behind',
  });
  try {
    const list = await listOffThread(config, NODES);
    assert.deepEqual(
      list.items.map((item) => item.metadata!.name),
      ['n0'],
    );
    assert.deepEqual(tunnels, ['api.topogate.invalid:6443']);
    assert.deepEqual(asked, ['/api/v1/nodes?limit=500']);
  } finally {
    api.closeAllConnections();
    closed(proxy);
  }
});

test('a page the main thread cannot apply fails the list with its error; the worker asks for no page beyond the next', async () => {
  const PAGES = 6;
  const asked: number[] = [];
  const server = await listening(
    createHttpServer((request, response) => {
      const n = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('continue') ?? '0');
      asked.push(n);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(nodePage(n, PAGES));
    }),
  );
  try {
    const failing = listOffThread(loopbackKubeConfig(server), NODES, {
      onPage: () => {
        throw new Error('the model refused the page');
      },
    });
    await assert.rejects(failing, /the model refused the page/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(asked.length <= 2, `a failed list asked for pages ${asked.join(', ')}`);
  } finally {
    closed(server);
  }
});

test('each page is applied in a turn of the event loop of its own, however many have arrived', async () => {
  const PAGES = 4;
  const server = await listening(
    createHttpServer((request, response) => {
      const n = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('continue') ?? '0');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(nodePage(n, PAGES));
    }),
  );
  const seen: string[] = [];
  try {
    await listOffThread(loopbackKubeConfig(server), NODES, {
      onPage: (items) => {
        seen.push(items[0]!.metadata!.name!);
        // Long enough for the next page to be waiting on the port: it must still wait for the next turn.
        const until = performance.now() + 100;
        while (performance.now() < until);
        setImmediate(() => seen.push('turn'));
      },
    });
    assert.deepEqual(seen.slice(0, 2 * PAGES - 1), ['n0', 'turn', 'n1', 'turn', 'n2', 'turn', 'n3']);
  } finally {
    closed(server);
  }
});

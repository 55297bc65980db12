// The Pods, most of a large cluster's bytes, are listed once the Nodes have been: their pages no longer take turns
// with the Nodes', and the first snapshot of every node comes after the Nodes' bytes alone.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createKubeTopology } from '../../../../src/sources/topology/kube.ts';
import { loopbackKubeConfigFile } from '../loopback-kubeconfig.ts';

const emptyList = '{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}';

test('the Pods are listed after the Nodes', async () => {
  const seen: string[] = [];
  const watches: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.searchParams.get('watch') === 'true') {
      response.writeHead(200, { 'content-type': 'application/json' }).write('');
      return void watches.push(response);
    }
    seen.push(`asked ${url.pathname}`);
    const answer = () => {
      if (url.pathname === '/api/v1/nodes') seen.push('answered /api/v1/nodes');
      response.writeHead(200, { 'content-type': 'application/json' }).end(emptyList);
    };
    // The Nodes take a while: were the Pods listed at the same time, they would be asked meanwhile.
    if (url.pathname === '/api/v1/nodes') setTimeout(answer, 300);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'list-order-'));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfig = loopbackKubeConfigFile(url, dir);
  const topology = createKubeTopology({
    kubeconfig,
    etcdMetrics: [],
    log: pino({ level: 'silent' }),
    registry: new Registry(),
  });
  try {
    await topology.ready(15_000);
    const nodesAnswered = seen.indexOf('answered /api/v1/nodes');
    assert.ok(nodesAnswered >= 0, seen.join('; '));
    assert.ok(seen.indexOf('asked /api/v1/pods') > nodesAnswered, seen.join('; '));
    assert.ok(seen.indexOf('asked /api/v1/namespaces') < nodesAnswered, 'the other sources do not wait');
  } finally {
    await topology.stop();
    for (const watch of watches) watch.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
});

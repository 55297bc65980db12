import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { issueCertificates } from '../../../src/certs/issue.ts';
import { loadKubeConfig } from '../../../src/kube-client/kubeconfig.ts';

/** A TLS server answering every GET with an empty NamespaceList, counting the TLS connections made to it. */
async function countingApiServer() {
  const pair = issueCertificates({ service: 'kubernetes', namespace: 'default', localhost: true });
  let connections = 0;
  const server = createServer({ cert: pair.tlsCert, key: pair.tlsKey }, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [] }));
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'topogate-kubeconfig-'));
  const file = join(dir, 'kubeconfig');
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ca = Buffer.from(pair.caCert).toString('base64');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: url, 'certificate-authority-data': ca } }],
      users: [{ name: 'u', user: { token: 'a-token' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return {
    file,
    connections: () => connections,
    close: () => (server.close(), rmSync(dir, { recursive: true, force: true })),
  };
}

const CALLS = 6;

async function list(config: KubeConfig): Promise<void> {
  const api = config.makeApiClient(CoreV1Api);
  for (let i = 0; i < CALLS; i++) assert.deepEqual((await api.listNamespace()).items, []);
}

test('API calls through loadKubeConfig reuse kept-alive TLS connections; client-node alone opens one per call', async () => {
  const server = await countingApiServer();
  try {
    const plain = new KubeConfig();
    plain.loadFromFile(server.file);
    await list(plain);
    assert.equal(server.connections(), CALLS, 'client-node 2.0 alone: a new connection per call');
    await list(loadKubeConfig(server.file));
    // undici's pool may open a second connection while the first is handed back, never one per call.
    const reused = server.connections() - CALLS;
    assert.ok(reused >= 1 && reused <= 2, `loadKubeConfig: ${reused} connections for ${CALLS} calls`);
  } finally {
    server.close();
  }
});

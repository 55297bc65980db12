// The API server presenting a client certificate to topogate, set up as
// SECURITY.md tells an admin to: an AdmissionConfiguration whose kubeconfig
// names topogate's host:port, and `serve --client-ca`. topogate places the
// API server's Pods, and refuses the same call from anyone else, including
// the API server itself when it has no certificate for the host it calls.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { clientPki } from '../unit/server/client-pki.ts';
import { send } from '../unit/server/https.ts';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { coreApi, createNodes, kubectlOk, metricSamples } from './harness/kube.ts';
import { freePort } from './harness/ports.ts';
import type { Topogate } from './harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate } from './harness/topogate.ts';
import { httpsGet, waitFor } from './harness/wait.ts';

const policies = fileURLToPath(new URL('./fixtures/policies/', import.meta.url));
const namespace = 'team-certs';
const applied = (pod: V1Pod) => pod.metadata?.annotations?.['topogate.dev/policies'];
const webPod = (name: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { tier: 'web', app: 'certs' } },
  spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});
const review = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'direct',
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    namespace,
    object: webPod('direct'),
  },
};

describe(
  'topogate with --client-ca behind an API server that presents a client certificate',
  { timeout: 600_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'topogate-client-cert-'));
    const clients = clientPki('webhook-clients-ca', 'kube-apiserver');
    const stranger = clientPki('someone-else-ca', 'kube-apiserver');
    let port: number;
    let cluster: Cluster;
    let topogate: Topogate;
    let api: CoreV1Api;

    const dryRun = (name: string) => api.createNamespacedPod({ namespace, body: webPod(name), dryRun: 'All' });
    const refusedCount = async () =>
      metricSamples(
        (await httpsGet(`${topogate.url}/metrics`, { ca: topogate.caPem })).body,
        'topogate_client_certificate_refused_total',
      ).reduce((sum, s) => sum + s.value, 0);
    const until = (what: string, probe: () => Promise<boolean>) =>
      waitFor(probe, { what, timeoutMs: 30_000, intervalMs: 250 });

    before(async () => {
      port = await freePort();
      const file = (name: string, content: string) => {
        writeFileSync(join(dir, name), content, { mode: 0o600 });
        return join(dir, name);
      };
      const clientCa = file('webhook-clients-ca.crt', clients.caCert);
      // The user's name is the host:port the API server calls (the webhook's url).
      const kubeconfig = file(
        'webhook-clients.kubeconfig',
        stringify({
          apiVersion: 'v1',
          kind: 'Config',
          users: [
            {
              name: `127.0.0.1:${port}`,
              user: {
                'client-certificate': file('kube-apiserver.crt', clients.client.cert),
                'client-key': file('kube-apiserver.key', clients.client.key),
              },
            },
          ],
        }),
      );
      const admission = file(
        'admission.yaml',
        stringify({
          apiVersion: 'apiserver.config.k8s.io/v1',
          kind: 'AdmissionConfiguration',
          plugins: [
            {
              name: 'MutatingAdmissionWebhook',
              configuration: {
                apiVersion: 'apiserver.config.k8s.io/v1',
                kind: 'WebhookAdmissionConfiguration',
                kubeConfigFile: kubeconfig,
              },
            },
          ],
        }),
      );

      cluster = await startCluster({ apiServerArgs: [`--admission-control-config-file=${admission}`] });
      api = coreApi(cluster);
      await installTopogateCrds(cluster);
      await createNodes(api, [{ name: 'web-b1', labels: { 'topology.kubernetes.io/zone': 'zone-b' } }]);
      await applyAll(cluster, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }]);
      topogate = await startTopogate({ cluster, policies, port, serveArgs: ['--client-ca', clientCa] });
      await registerWebhook(cluster, topogate);
    });

    after(async () => {
      await topogate?.stop();
      await cluster?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('the API server presents its certificate and its Pods are placed; none of its calls is refused', async () => {
      await until('a placed Pod', async () => applied(await dryRun('probe')) === 'web-zones');
      assert.equal(applied(await dryRun('web-1')), 'web-zones');
      assert.equal(await refusedCount(), 0);
    });

    test('a caller without a certificate, or with one from another CA, gets 401 from /mutate; the probes need none', async () => {
      const post = (client: { cert?: string; key?: string }) =>
        send(
          topogate.url,
          '/mutate',
          topogate.caPem,
          { method: 'POST', headers: { 'content-type': 'application/json' }, ...client },
          JSON.stringify(review),
        );
      const before = await refusedCount();
      assert.equal((await post({})).status, 401);
      assert.equal((await post(stranger.client)).status, 401);
      assert.equal((await post(clients.client)).status, 200, "the same request with the API server's certificate");
      assert.equal(await refusedCount(), before + 2);
      assert.equal((await httpsGet(`${topogate.url}/readyz`, { ca: topogate.caPem })).status, 200);
    });

    test('called at a host its kubeconfig has no certificate for, the API server is refused too, and failurePolicy Ignore admits the Pod as written', async () => {
      const before = await refusedCount();
      await kubectlOk(cluster, [
        'patch',
        'mutatingwebhookconfiguration',
        'topogate',
        '--type=json',
        '-p',
        JSON.stringify([
          { op: 'replace', path: '/webhooks/0/clientConfig/url', value: `https://localhost:${port}/mutate` },
        ]),
      ]);
      await until('the API server calling localhost, refused', async () => {
        const placed = applied(await dryRun('unplaced-probe'));
        return placed === undefined && (await refusedCount()) > before;
      });
      assert.equal(applied(await dryRun('unplaced')), undefined);
    });
  },
);

// explain pod/…, audit and mutate --kubeconfig decide with the files the running webhook serves: found
// through the MutatingWebhookConfiguration's Service, read from its `<Service>-policies` ConfigMap.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { loopbackKubeConfig } from '../loopback-kubeconfig.ts';
import { readWebhookPolicyFiles } from '../../../../src/sources/policies/webhook-files.ts';

const policy = (name: string) =>
  `apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: ${name}}\nspec:\n  match: {namespaces: ["web"]}\n  rules:\n    spread: [{topologyKey: topology.kubernetes.io/zone}]\n`;

async function fakeApiServer(routes: Record<string, [number, unknown]>) {
  const seen: string[] = [];
  const server = createServer(async (request, response) => {
    for await (const _ of request);
    seen.push(request.url ?? '');
    const [status, body] = routes[(request.url ?? '').replace(/\?.*$/, '')] ?? [
      404,
      { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' },
    ];
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = loopbackKubeConfig(server);
  return { config, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const webhooks = (clientConfig: unknown) =>
  [
    200,
    {
      kind: 'MutatingWebhookConfigurationList',
      apiVersion: 'admissionregistration.k8s.io/v1',
      items: [
        {
          metadata: { name: 'other' },
          webhooks: [
            {
              name: 'pods.other.dev',
              clientConfig: { service: { namespace: 'x', name: 'y' } },
              admissionReviewVersions: ['v1'],
              sideEffects: 'None',
            },
          ],
        },
        {
          metadata: { name: 'tg' },
          webhooks: [{ name: 'pods.topogate.dev', clientConfig, admissionReviewVersions: ['v1'], sideEffects: 'None' }],
        },
      ],
    },
  ] as [number, unknown];

const LIST = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';

test('the policies ConfigMap of the Service the webhook calls: its policy files, in name order', async () => {
  const api = await fakeApiServer({
    [LIST]: webhooks({ service: { namespace: 'ops', name: 'tg' } }),
    '/api/v1/namespaces/ops/configmaps/tg-policies': [
      200,
      {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name: 'tg-policies' },
        data: { 'b.yaml': policy('second'), 'a.yml': policy('first'), notes: 'not a policy' },
      },
    ],
  });
  try {
    const read = await readWebhookPolicyFiles(api.config);
    assert.ok('configMap' in read, JSON.stringify(read));
    assert.equal(read.configMap, 'ops/tg-policies');
    assert.deepEqual(read.set.errors, []);
    assert.deepEqual(
      read.set.policies.map((entry) => [entry.name, entry.source?.file]),
      [
        ['first', 'ConfigMap/ops/tg-policies/a.yml'],
        ['second', 'ConfigMap/ops/tg-policies/b.yaml'],
      ],
    );
  } finally {
    await api.close();
  }
});

test('no policies ConfigMap, or a webhook called by URL: none, and why', async () => {
  const noConfigMap = await fakeApiServer({ [LIST]: webhooks({ service: { namespace: 'ops', name: 'tg' } }) });
  const byUrl = await fakeApiServer({ [LIST]: webhooks({ url: 'https://10.0.0.1:8443/mutate' }) });
  try {
    assert.deepEqual(await readWebhookPolicyFiles(noConfigMap.config), {
      missing: "the ConfigMap ops/tg-policies, which holds the webhook's policy files, does not exist",
    });
    assert.deepEqual(await readWebhookPolicyFiles(byUrl.config), {
      missing: 'no MutatingWebhookConfiguration calls a Service as pods.topogate.dev',
    });
  } finally {
    await Promise.all([noConfigMap.close(), byUrl.close()]);
  }
});

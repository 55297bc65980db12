import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { test } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { loopbackKubeConfig } from '../sources/loopback-kubeconfig.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { startPolicyWriter } from '../../../src/sources/policies/writer.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { NOW } from './engine-cluster.ts';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly contentType: string;
  readonly body: any;
}

async function fakeApiServer(): Promise<{ config: KubeConfig; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      contentType: request.headers['content-type'] ?? '',
      body: text ? JSON.parse(text) : undefined,
    });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = loopbackKubeConfig(server);
  return { config, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const object = (name: string, spec: unknown, status?: unknown): KubeObject => ({
  apiVersion: 'topogate.dev/v1alpha1',
  kind: 'SchedulingPolicy',
  metadata: { name, generation: 2, resourceVersion: '7' },
  spec,
  ...(status !== undefined && { status }),
});

test('the leader writes each object’s status that is not right yet, by merge patch on the status subresource; a follower writes nothing', async () => {
  const api = await fakeApiServer();
  let objects = [object('good', { rules: { spread: [{ topologyKey: 'zone' }] } }), object('bad', { rules: {} })];
  const listeners = new Set<() => void>();
  let leading = false;
  let callbacks: { onStartedLeading(): void } | undefined;
  const writer = startPolicyWriter({
    config: api.config,
    objects: () => objects,
    files: () => [],
    policies: () => [],
    snapshot: () => buildSnapshot([], { now: NOW }),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    elect: (given) => {
      callbacks = given;
      return { isLeader: () => leading, stop: async () => {} };
    },
    maxSourceAgeMs: 60_000,
    list: { pods: async () => [], workloads: async () => [], writeReports: async () => 0 },
    log: pino({ level: 'silent' }),
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
  const until = async (count: number) => {
    for (let waited = 0; api.seen.length < count && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
  };
  try {
    for (const listener of listeners) listener();
    await settle();
    assert.equal(api.seen.length, 0, 'a follower writes nothing');

    leading = true;
    callbacks!.onStartedLeading();
    await until(2);
    assert.deepEqual(
      api.seen.map((request) => [request.method, request.url, request.contentType]),
      ['good', 'bad'].map((name) => [
        'PATCH',
        `/apis/topogate.dev/v1alpha1/schedulingpolicies/${name}/status`,
        'application/merge-patch+json',
      ]),
    );
    const bad = api.seen[1]!.body.status;
    assert.equal(bad.observedGeneration, 2);
    assert.deepEqual(
      [bad.conditions[0].type, bad.conditions[0].status, bad.conditions[0].reason],
      ['Ready', 'False', 'Invalid'],
    );
    assert.match(bad.conditions[0].message, /^SchedulingPolicy\/bad: spec\.rules: /);

    // Once the watch shows the written status, a change elsewhere writes nothing more.
    const written = api.seen.splice(0).map((request) => request.body.status);
    objects = objects.map((entry, index) => ({ ...entry, status: written[index] }));
    for (const listener of listeners) listener();
    await settle();
    assert.equal(api.seen.length, 0);
  } finally {
    await writer.stop();
    await api.close();
  }
});

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { test } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { loopbackKubeConfig } from '../loopback-kubeconfig.ts';
import type { KubeObject } from '../../../../src/kube/types.ts';
import { startPolicyWriter } from '../../../../src/sources/policies/writer.ts';
import { buildSnapshot } from '../../../../src/topology/build.ts';
import { NOW } from '../../policy/engine-cluster.ts';

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
  /** Write passes begun: each asks isLeader() first, and begins only once the one before has ended. */
  let passes = 0;
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
      return {
        isLeader: () => (passes++, leading),
        stop: async () => {},
      };
    },
    maxSourceAgeMs: 60_000,
    list: { pods: async () => [], workloads: async () => [], writeReports: async () => 0 },
    log: pino({ level: 'silent' }),
  });
  const until = async (what: string, done: () => boolean) => {
    for (let waited = 0; !done() && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(done(), `waited 10 s for ${what}`);
  };
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const patched = () => api.seen.map((request) => [request.method, request.url, request.contentType]);
  const statusPatch = (name: string) => [
    'PATCH',
    `/apis/topogate.dev/v1alpha1/schedulingpolicies/${name}/status`,
    'application/merge-patch+json',
  ];
  try {
    changed();
    await until("the follower's pass", () => passes === 1);

    leading = true;
    callbacks!.onStartedLeading();
    await until('two writes', () => api.seen.length >= 2);
    // Once the watch shows the written status, a change elsewhere writes nothing more.
    const written = api.seen.map((request) => request.body.status);
    objects = objects.map((entry, index) => ({ ...entry, status: written[index] }));
    changed();
    await until("the leader's pass to end, and the next to begin", () => passes === 3);
    // Passes run one after another, each awaiting its writes: the follower's wrote none of these.
    assert.deepEqual(patched(), [statusPatch('good'), statusPatch('bad')]);
    const bad = api.seen[1]!.body.status;
    assert.equal(bad.observedGeneration, 2);
    assert.deepEqual(
      [bad.conditions[0].type, bad.conditions[0].status, bad.conditions[0].reason],
      ['Ready', 'False', 'Invalid'],
    );
    assert.match(bad.conditions[0].message, /^SchedulingPolicy\/bad: spec\.rules: /);

    // The positive control: a new generation of one object is written, and it is the first write after the
    // pass that saw every status right, so that pass wrote nothing.
    api.seen.splice(0);
    objects = objects.map((entry) =>
      entry.metadata?.name === 'good' ? { ...entry, metadata: { ...entry.metadata, generation: 3 } } : entry,
    );
    changed();
    await until("the new generation's write", () => api.seen.length >= 1);
    assert.deepEqual(patched(), [statusPatch('good')]);
    assert.equal(api.seen[0]!.body.status.observedGeneration, 3);
  } finally {
    await writer.stop();
    await api.close();
  }
});

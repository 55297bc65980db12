// The one list + watch informer: a failure lists again after a bounded, growing backoff that a good list resets,
// keeping the last objects meanwhile; a watch ended by 410 Gone lists again at once, with no backoff.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { Informer } from '../../../src/kube-client/informer.ts';
import { fakeApi, until } from './fake-api.ts';

const nodeList = (resourceVersion: string, ...names: string[]) => ({
  status: 200,
  body: {
    kind: 'NodeList',
    apiVersion: 'v1',
    metadata: { resourceVersion },
    items: names.map((name) => ({ metadata: { name, resourceVersion } })),
  },
});
const failure = { status: 500 };

function logged() {
  const records: { level: number; msg: string; retryInMs?: number }[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void records.push(JSON.parse(line)) });
  return { log, retries: () => records.flatMap((record) => record.retryInMs ?? []), records };
}

test('failures list again after a doubling, capped backoff; a good list resets it; the last objects stay', async () => {
  const seenDuringOutage: string[][] = [];
  const api = await fakeApi(
    {
      'GET /api/v1/nodes': [
        nodeList('1', 'a'),
        failure,
        failure,
        failure,
        nodeList('2', 'a', 'b'),
        nodeList('3', 'a', 'b', 'c'),
      ],
      'GET /api/v1/nodes watch': [failure, failure, 'hold'],
    },
    (key) => {
      if (key === 'GET /api/v1/nodes') seenDuringOutage.push(names());
    },
  );
  const { log, retries, records } = logged();
  const informer = new Informer<V1Node>({
    config: api.config,
    path: '/api/v1/nodes',
    list: () => api.config.makeApiClient(CoreV1Api).listNode(),
    backoff: { initialMs: 5, maxMs: 20, jitter: 0 },
    title: 'Nodes',
    log,
  });
  const names = () => informer.list().map((node) => node.metadata!.name!);
  try {
    informer.start();
    await until(() => names().length === 3, 'the third list', api.seen);
    // The watch fails (5), three lists fail (10, 20, 20 capped); a good list, then the watch fails again (5).
    assert.deepEqual(retries(), [5, 10, 20, 20, 5]);
    assert.deepEqual(seenDuringOutage, [[], ['a'], ['a'], ['a'], ['a'], ['a', 'b']]);
    assert.equal(informer.synced(), true);
    // A failure is said once per kind, and its end once.
    assert.equal(records.filter((record) => record.level === 40).length, 3, JSON.stringify(records));
    assert.ok(records.some((record) => record.msg === 'Nodes is back'));
  } finally {
    await informer.stop();
    await api.close();
  }
});

test('a watch ended by 410 Gone lists again at once, with no backoff', async () => {
  const gone = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', code: 410, reason: 'Expired' } };
  const api = await fakeApi({
    'GET /api/v1/nodes': [nodeList('1', 'a'), nodeList('9', 'b')],
    'GET /api/v1/nodes watch': [{ events: [gone] }, 'hold'],
  });
  const { log, retries } = logged();
  const lists: string[][] = [];
  const informer = new Informer<V1Node>({
    config: api.config,
    path: '/api/v1/nodes',
    list: () => api.config.makeApiClient(CoreV1Api).listNode(),
    // A backoff would wait a minute: the relist must not.
    backoff: { initialMs: 60_000, maxMs: 60_000 },
    title: 'Nodes',
    log,
    onList: (items) => void lists.push(items.map((node) => node.metadata!.name!)),
  });
  try {
    informer.start();
    await until(() => lists.length === 2, 'the list after 410 Gone', api.seen);
    assert.deepEqual(lists, [['a'], ['b']]);
    assert.deepEqual(
      informer.list().map((node) => node.metadata!.name),
      ['b'],
    );
    assert.deepEqual(retries(), []);
  } finally {
    await informer.stop();
    await api.close();
  }
});

// An informer that keeps no objects (cache: false): each list reaches onList whole and no object is reported
// added for it, watch events reach onEvent, a watch ended by 410 Gone lists again at once, a clean end resumes
// the watch from the last resourceVersion seen, and list() answers none, so nothing holds a second copy.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { Informer, type InformerEvent } from '../../../src/kube-client/informer.ts';
import { fakeApi, until } from './fake-api.ts';

const node = (name: string, resourceVersion: string) => ({ metadata: { name, resourceVersion } });
const nodeList = (resourceVersion: string, ...names: string[]) => ({
  status: 200,
  body: { kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion }, items: names.map((n) => node(n, '1')) },
});
const event = (type: string, name: string, resourceVersion: string) => ({
  type,
  object: { kind: 'Node', apiVersion: 'v1', ...node(name, resourceVersion) },
});
const gone = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', code: 410, reason: 'Expired' } };

test('an uncached informer hands on lists and events, relists after 410 Gone, and keeps nothing', async () => {
  const watchedFrom: (string | null)[] = [];
  const api = await fakeApi(
    {
      'GET /api/v1/nodes': [nodeList('5', 'a', 'b'), nodeList('9', 'b', 'c')],
      'GET /api/v1/nodes watch': [
        { events: [event('MODIFIED', 'a', '6')] },
        { events: [event('DELETED', 'a', '7'), gone] },
        'hold',
      ],
    },
    (key, request) => {
      if (key.endsWith(' watch'))
        watchedFrom.push(new URL(request.url ?? '/', 'http://x').searchParams.get('resourceVersion'));
    },
  );
  const lists: string[][] = [];
  const events: string[] = [];
  const informer = new Informer<V1Node>({
    config: api.config,
    path: '/api/v1/nodes',
    list: () => api.config.makeApiClient(CoreV1Api).listNode(),
    // A backoff would wait a minute: neither the resume nor the relist may.
    backoff: { initialMs: 60_000, maxMs: 60_000 },
    cache: false,
    title: 'Nodes',
    log: pino({ level: 'silent' }),
    onList: (items) => void lists.push(items.map((item) => item.metadata!.name!)),
    onEvent: (type: InformerEvent, object) => void events.push(`${type} ${object.metadata!.name}`),
  });
  try {
    informer.start();
    await until(() => lists.length === 2 && watchedFrom.length === 3, 'the list after 410 Gone', api.seen);
    assert.deepEqual(lists, [
      ['a', 'b'],
      ['b', 'c'],
    ]);
    // No add per listed object: the lists went whole to onList.
    assert.deepEqual(events, ['MODIFIED a', 'DELETED a']);
    // The first watch from the list, the second resumed after the first's end, the third from the new list.
    assert.deepEqual(watchedFrom, ['5', '6', '9']);
    assert.deepEqual(informer.list(), []);
    assert.equal(informer.get('b'), undefined);
    assert.equal(informer.synced(), true);
  } finally {
    await informer.stop();
    await api.close();
  }
});

// Both list-watches ask for bookmarks and take one as a resourceVersion only: a watch that ends after a bookmark
// resumes from the bookmark's resourceVersion, with no list again, and no object is added or reported for it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { Informer } from '../../../src/kube-client/informer.ts';
import { fakeApi, until } from './fake-api.ts';

const nodeList = {
  status: 200,
  body: {
    kind: 'NodeList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '5' },
    items: [{ metadata: { name: 'a' } }],
  },
};
const bookmark = { type: 'BOOKMARK', object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: '12' } } };

for (const cache of [true, false])
  for (const slimAs of [undefined, 'nodes'])
    test(`a bookmark moves the watch on (cache: ${cache}, slimmed: ${slimAs !== undefined})`, async () => {
      const watches: URLSearchParams[] = [];
      const api = await fakeApi(
        { 'GET /api/v1/nodes': [nodeList], 'GET /api/v1/nodes watch': [{ events: [bookmark] }, 'hold'] },
        (key, request) => {
          if (key.endsWith(' watch')) watches.push(new URL(request.url ?? '/', 'http://x').searchParams);
        },
      );
      const events: string[] = [];
      const informer = new Informer<V1Node>({
        config: api.config,
        path: '/api/v1/nodes',
        list: () => api.config.makeApiClient(CoreV1Api).listNode(),
        cache,
        ...(slimAs !== undefined && { slimAs }),
        backoff: { initialMs: 60_000, maxMs: 60_000 },
        title: 'Nodes',
        log: pino({ level: 'silent' }),
        onEvent: (type, object) => void events.push(`${type} ${object.metadata?.name}`),
      });
      try {
        informer.start();
        await until(() => watches.length === 2, 'the watch resumed after the bookmark', api.seen);
        assert.deepEqual(
          watches.map((query) => [query.get('resourceVersion'), query.get('allowWatchBookmarks')]),
          [
            ['5', 'true'],
            ['12', 'true'],
          ],
        );
        assert.equal(api.seen.filter((key) => key === 'GET /api/v1/nodes').length, 1, 'listed once');
        assert.deepEqual(
          events.filter((event) => !event.startsWith('ADDED a')),
          [],
          'the bookmark is no object',
        );
        assert.deepEqual(
          informer.list().map((node) => node.metadata?.name),
          cache ? ['a'] : [],
        );
      } finally {
        await informer.stop();
        await api.close();
      }
    });

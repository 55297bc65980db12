// The one status writer: makes the object when it is missing, replaces the status carrying the resourceVersion it
// read (the old status handed to `next`), and after a conflict reads again and tries once more, not twice.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusWriter } from '../../../src/kube-client/status-writer.ts';
import { fakeApi } from './fake-api.ts';

const ref = { group: 'topogate.dev', version: 'v1alpha1', plural: 'widgets', kind: 'Widget', name: 'default' };
const path = '/apis/topogate.dev/v1alpha1/widgets';
const object = (resourceVersion: string, status?: unknown) => ({
  status: 200,
  body: { apiVersion: 'topogate.dev/v1alpha1', kind: 'Widget', metadata: { name: 'default', resourceVersion }, status },
});

test('a missing object is made with its spec, then its status written on the resourceVersion read', async () => {
  const bodies: unknown[] = [];
  const api = await fakeApi(
    {
      [`GET ${path}/default`]: [{ status: 404 }],
      [`POST ${path}`]: [{ status: 201, body: object('1').body }],
      [`PUT ${path}/default/status`]: [{ status: 200, body: object('2').body }],
    },
    (key, request) => {
      if (key.startsWith('GET')) return;
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk));
      request.on('end', () => bodies.push(JSON.parse(text)));
    },
  );
  const seenByNext: unknown[] = [];
  try {
    await new StatusWriter(api.config, ref, { size: 3 }).write((current) => {
      seenByNext.push(current);
      return { answer: 42 };
    });
    assert.deepEqual(api.seen, [`GET ${path}/default`, `POST ${path}`, `PUT ${path}/default/status`]);
    assert.deepEqual(seenByNext, [undefined]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(bodies, [
      { apiVersion: 'topogate.dev/v1alpha1', kind: 'Widget', metadata: { name: 'default' }, spec: { size: 3 } },
      { ...object('1').body, status: { answer: 42 } },
    ]);
  } finally {
    await api.close();
  }
});

test('a conflict reads again and tries once more; a second conflict is the caller’s', async () => {
  const api = await fakeApi({
    [`GET ${path}/default`]: [object('1', { n: 1 }), object('2', { n: 2 }), object('3', { n: 3 }), object('4')],
    [`PUT ${path}/default/status`]: [{ status: 409 }, { status: 200 }, { status: 409 }, { status: 409 }],
  });
  const writer = new StatusWriter(api.config, ref);
  const seenByNext: unknown[] = [];
  try {
    await writer.write((current) => (seenByNext.push(current), { n: 9 }));
    assert.deepEqual(seenByNext, [{ n: 1 }, { n: 2 }]);
    await assert.rejects(
      writer.write(() => ({ n: 10 })),
      (error: { code?: number }) => error.code === 409,
    );
    assert.equal(api.seen.filter((request) => request.startsWith('PUT')).length, 4);
  } finally {
    await api.close();
  }
});

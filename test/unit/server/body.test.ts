import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { test } from 'node:test';
import { readIncoming } from '../../../src/server/body.ts';

test('reads a body in many chunks from the Node request, multi-byte characters split across them', async () => {
  const bytes = Buffer.from('{"name":"zürich-ä"}');
  const chunks = [...bytes].map((byte) => Buffer.from([byte]));
  assert.deepEqual(await readIncoming(Readable.from(chunks), 1024), { ok: true, bytes });
});

test('an empty body is no bytes', async () => {
  assert.deepEqual(await readIncoming(Readable.from([]), 1024), { ok: true, bytes: Buffer.alloc(0) });
});

test('stops at the first chunk past the limit with a 413', async () => {
  const incoming = new PassThrough();
  const result = readIncoming(incoming, 10);
  incoming.write(Buffer.alloc(8, 0x20));
  incoming.write(Buffer.alloc(8, 0x20));
  assert.deepEqual(await result, {
    ok: false,
    code: 413,
    message: 'the body is more than 10 bytes; the limit is 10 bytes (0.0 MiB)',
  });
  assert.equal(incoming.isPaused(), true);
});

test('a client that goes away mid-body is a 400 naming why', async () => {
  const incoming = new PassThrough();
  const result = readIncoming(incoming, 1024);
  incoming.write('{"a":');
  incoming.destroy(new Error('socket hang up'));
  assert.deepEqual(await result, { ok: false, code: 400, message: 'the body could not be read: socket hang up' });
});

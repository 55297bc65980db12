import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { ApiException } from '@kubernetes/client-node';
import { describeKubeError, statusOf } from '../../../src/kube-client/errors.ts';

describe('describeKubeError', () => {
  it('gives the status and the API server’s message from the Status body', () => {
    const body = JSON.stringify({
      kind: 'Status',
      status: 'Failure',
      message: 'nodes is forbidden: User "x" cannot list resource "nodes"',
      code: 403,
    });
    const error = new ApiException(403, 'Unknown API Status Code!', body, {});
    assert.equal(statusOf(error), 403);
    assert.equal(describeKubeError(error), 'HTTP 403: nodes is forbidden: User "x" cannot list resource "nodes"');
  });

  it('falls back to the Message line when there is no body', () => {
    const error = new ApiException(401, 'Unauthorized', undefined, {});
    assert.equal(describeKubeError(error), 'HTTP 401: Unauthorized');
  });

  it('says what the network said under fetch failed, and reads a watch’s statusCode', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const error = await fetch(`http://127.0.0.1:${port}/api/v1/nodes`).catch((e: unknown) => e);
    assert.equal(describeKubeError(error), 'fetch failed (ECONNREFUSED)');
    assert.equal(describeKubeError(Object.assign(new Error('Gone'), { statusCode: 410 })), 'HTTP 410: Gone');
    assert.equal(describeKubeError('plain'), 'plain');
  });
});

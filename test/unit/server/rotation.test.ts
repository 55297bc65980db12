import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { issueCertificates } from '../../../src/certs/issue.ts';
import { writeCertificates } from '../../../src/certs/write.ts';
import { metricValue, postJson, send, startTestServer, until, type Reply } from './https.ts';

const review = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u',
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    object: { metadata: { name: 'p' } },
  },
};

test('a new certificate is served without a restart, and no request fails meanwhile', async () => {
  const running = await startTestServer();
  try {
    const next = issueCertificates({
      service: 'topogate',
      namespace: 'test',
      localhost: true,
      now: new Date(Date.now() + 1000),
    });
    const trusted = [running.certificates.caCert, next.caCert];
    const oldIssuer = (await send(running.server.url, '/healthz', trusted)).issuer;

    // A request in flight across the rotation: headers now, the rest of the body once the swap is seen.
    const body = JSON.stringify(review);
    let swapped!: () => void;
    const inFlight = send(running.server.url, '/mutate', trusted, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: [body.slice(0, 10), body.slice(10)],
      lastChunkAfter: new Promise<void>((resolve) => (swapped = resolve)),
    });

    const replies: Reply[] = [];
    let rotating = true;
    const load = (async () => {
      while (rotating) replies.push(await postJson(running.server.url, trusted, review));
    })();

    // Half-written: the new key beside the old certificate is ignored.
    await writeFile(join(running.certDir, 'tls.key'), next.tlsKey);
    await until(
      async () => (await metricValue(running, 'topogate_certificate_reloads_total', { result: 'rejected' })) >= 1,
      'the mismatched pair to be rejected',
    );
    assert.equal((await send(running.server.url, '/healthz', trusted)).issuer, oldIssuer);

    await writeCertificates(running.certDir, next);
    await until(
      async () => (await send(running.server.url, '/healthz', trusted)).issuer !== oldIssuer,
      'the new certificate',
    );
    swapped();
    rotating = false;
    await load;

    assert.equal((await inFlight).status, 200);
    assert.ok(replies.length > 0);
    assert.deepEqual(
      replies.filter((reply) => reply.status !== 200),
      [],
    );
    assert.equal(await metricValue(running, 'topogate_certificate_reloads_total', { result: 'applied' }), 1);
    // Only the new CA is needed from now on.
    assert.equal((await send(running.server.url, '/healthz', next.caCert)).status, 200);
  } finally {
    await running.stop();
  }
});

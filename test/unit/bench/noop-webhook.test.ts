import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { issueCertificates } from '../../../src/certs/issue.ts';
import { writeCertificates } from '../../../src/certs/write.ts';
import { fetchLocal, startServer, waitReady } from '../../../bench/processes.ts';
import { admissionReview, trainerPod } from '../../../bench/workload.ts';

const NOOP = fileURLToPath(new URL('../../../bench/noop-webhook.ts', import.meta.url));
const PORT = 18544;

test('the no-op webhook echoes the uid, allows, answers bad JSON with 400, and counts answers and connections', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-noop-'));
  await writeCertificates(dir, issueCertificates({ service: 'noop', namespace: 'bench', localhost: true }));
  const server = startServer('no-op webhook', PORT, [NOOP, dir, String(PORT)]);
  try {
    await waitReady(server, '/healthz', 20_000);
    const review = admissionReview(trainerPod(), 'ml-training', 'a-uid-of-this-test');
    const reply = await fetchLocal(PORT, '/mutate?timeout=10s', JSON.stringify(review));
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'a-uid-of-this-test', allowed: true },
    });
    assert.equal((await fetchLocal(PORT, '/mutate', '{not json')).status, 400);
    assert.equal(Number((await fetchLocal(PORT, '/answered')).body), 1, 'one review answered');
    assert.ok(Number((await fetchLocal(PORT, '/secured')).body) >= 1, 'the connection asking is past its handshake');
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

// A cold process spends tens of milliseconds on its first request (module
// code compiled lazily, the body stream, the engine's first decision), far
// beyond a budget of a few ms: the first real Pods would all be skipped. So
// one dry-run review goes through a twin of the app, with its own metrics,
// before the server listens.

import type { Hono } from 'hono';
import type { WebhookEnv } from './arrival.ts';

const review = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'topogate-warm-up',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    namespace: 'default',
    operation: 'CREATE',
    dryRun: true,
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'warm-up', labels: { app: 'warm-up' } }, spec: { containers: [{ name: 'c', image: 'warm-up', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } },
  },
};

/** The status of the warm-up answer (200 unless deciding failed). */
export async function warmUp(app: Hono<WebhookEnv>): Promise<number> {
  const response = await app.request('/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(review) });
  await response.arrayBuffer();
  return response.status;
}

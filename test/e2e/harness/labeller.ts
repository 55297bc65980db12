// A second, real mutating webhook that runs after topogate and adds a label:
// the change that makes the API server reinvoke topogate (reinvocationPolicy
// IfNeeded), so a test can see that the second call adds nothing twice.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { join } from 'node:path';
import { freePort } from './ports.ts';

export const labelKey = 'e2e.topogate.dev/relabelled';

export interface Labeller {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves with the certificate in certDir (tls.crt, tls.key; SANs must include 127.0.0.1). */
export async function startLabeller(certDir: string): Promise<Labeller> {
  const server: Server = createServer(
    { cert: readFileSync(join(certDir, 'tls.crt')), key: readFileSync(join(certDir, 'tls.key')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          apiVersion: string;
          request: { uid: string; object?: { metadata?: { labels?: Record<string, string> } } };
        };
        const labels = review.request.object?.metadata?.labels;
        const patch = labels?.[labelKey]
          ? []
          : [
              labels
                ? { op: 'add', path: `/metadata/labels/${labelKey.replace('/', '~1')}`, value: 'yes' }
                : { op: 'add', path: '/metadata/labels', value: { [labelKey]: 'yes' } },
            ];
        const response = {
          uid: review.request.uid,
          allowed: true,
          ...(patch.length
            ? { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') }
            : {}),
        };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }));
      });
    },
  );
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Its registration: after topogate (configurations run in name order), only for Pods labelled reinvoke=yes. */
export function labellerWebhook(labeller: Labeller, caPem: string): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'zz-e2e-labeller' },
    webhooks: [
      {
        name: 'labeller.e2e.topogate.dev',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { url: labeller.url, caBundle: Buffer.from(caPem).toString('base64') },
        rules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Namespaced' },
        ],
        objectSelector: { matchLabels: { reinvoke: 'yes' } },
      },
    ],
  };
}

// The /mutate answers that must not change when the request path is reworked:
// every AdmissionReview of the shared fixtures and a Pod CREATE review of
// every real-world Pod, answered by the demo install and by the benchmark's
// policy set, and the benchmark's own HTTP body. golden-answers.json holds
// digests of the response bodies, byte for byte (record.ts).

import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Registry } from 'prom-client';
import { admissionReview, trainerPod } from '../../../bench/workload.ts';
import type { CompiledPolicySet } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { DecisionOptions } from '../../../src/policy/types.ts';
import { createDecisionCost } from '../../../src/server/budget.ts';
import { createRequestListener } from '../../../src/server/listener.ts';
import { createWebhookMetrics } from '../../../src/server/metrics.ts';
import { basePods, baseReviews, podCreateReview } from '../fuzz/corpus.ts';
import { benchCompiled, benchOptions } from './cases.ts';
import { demoCompiled, demoOptions } from '../fuzz/demo.ts';

export interface AnswerCase {
  readonly label: string;
  readonly body: string;
  answer(): Promise<string>;
}

/** The webhook's own request listener on a loopback node:http server (the TLS around it changes no byte). */
async function answerer(
  compiled: CompiledPolicySet,
  options: DecisionOptions,
): Promise<(body: string) => Promise<string>> {
  const registry = new Registry();
  const listener = createRequestListener({
    mutate: {
      decide: (podRequest) => decide(podRequest, compiled, options),
      budgetMs: Number.POSITIVE_INFINITY,
      maxBodyBytes: 3 * 1024 * 1024,
      cost: createDecisionCost(),
      metrics: createWebhookMetrics(registry),
    },
    checks: {},
    registry,
    log: pino({ level: 'silent' }),
  });
  const server = createServer(listener).listen(0, '127.0.0.1').unref();
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return (body) =>
    new Promise((resolve, reject) => {
      const posted = request(
        { host: '127.0.0.1', port, path: '/mutate?timeout=10s', method: 'POST', agent: false },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve(
              `${response.statusCode} ${withoutSnapshotId(Buffer.concat(chunks).toString('utf8'), compiled.snapshotId)}`,
            ),
          );
        },
      );
      posted.on('error', reject);
      posted.setHeader('content-type', 'application/json');
      posted.end(body);
    });
}

/** The body with the snapshot's id (a digest of the fixture's objects: a fixture change would touch every answer) replaced, in the base64 patch too, all else as sent. */
function withoutSnapshotId(body: string, snapshotId: string): string {
  const patch = /"patch":"([^"]*)"/.exec(body)?.[1];
  const decoded = patch && Buffer.from(patch, 'base64').toString('utf8');
  return (decoded ? body.replace(patch, decoded) : body).replaceAll(snapshotId, '<snapshot>');
}

export async function answerCases(): Promise<AnswerCase[]> {
  const installs = {
    demo: await answerer(await demoCompiled(), demoOptions),
    bench: await answerer(benchCompiled(), benchOptions),
  };
  const cases: AnswerCase[] = [];
  for (const [install, answer] of Object.entries(installs)) {
    baseReviews.forEach((review, index) => {
      const body = JSON.stringify(review);
      cases.push({ label: `review #${index} ${install}`, body, answer: () => answer(body) });
    });
    basePods.forEach((pod, index) => {
      const body = JSON.stringify(podCreateReview(pod, `uid-${index}`, 'ml-training'));
      cases.push({ label: `real-world pod #${index} ml-training ${install}`, body, answer: () => answer(body) });
    });
  }
  const benchBody = JSON.stringify(admissionReview(trainerPod(), 'ml-training'));
  cases.push({ label: 'bench http body', body: benchBody, answer: () => installs.bench(benchBody) });
  return cases;
}

export function answerDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

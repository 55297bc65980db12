// The view as a part of serve: it records the placement controller's
// decisions beside the webhook's (the ring missed them before), and answers
// explain through the decider.

import assert from 'node:assert/strict';
import { get } from 'node:http';
import { test } from 'node:test';
import pino from 'pino';
import type { DecisionObserver, ServeContext } from '../../../../src/cli/serve/component.ts';
import { view } from '../../../../src/cli/serve/view.ts';
import { podRequest } from '../../../../src/kube/podFacts.ts';
import type { Decision } from '../../../../src/policy/types.ts';
import { snapshot } from '../../view/cluster.ts';

function json(url: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    get(url, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(JSON.parse(body)));
    }).on('error', reject),
  );
}

test("the placement controller's decisions are recorded beside the webhook's", async () => {
  const s = snapshot();
  let placed: DecisionObserver | undefined;
  const decision: Decision = {
    allowed: true,
    patch: [{ op: 'add', path: '/spec/affinity', value: {} }],
    warnings: [],
    auditAnnotations: {},
    applied: ['web-zone-spread'],
    matched: ['web-zone-spread'],
  };
  const context = {
    config: { uiListen: { host: '127.0.0.1', port: 0 } },
    topology: { current: () => s, occupancy: () => s.pods, subscribe: () => () => {} },
    policies: {
      current: () => ({ version: 1, policies: [] }),
      onChange: () => () => {},
      readiness: () => ({ ready: true }),
    },
    decider: { explain: () => ({ ...decision, trace: undefined }) },
    log: pino({ level: 'silent' }),
    started: [
      {
        onPlaced(observer: DecisionObserver) {
          placed = observer;
          return () => (placed = undefined);
        },
        stop: async () => {},
      },
    ],
  } as unknown as ServeContext;
  const logged: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });
  const component = (await view.start({ ...context, log }))!;
  try {
    const url = (JSON.parse(logged.find((line) => line.includes('topology view serving'))!) as { url: string }).url;
    const pod = (name: string) =>
      podRequest({ metadata: { name, namespace: 'shop' }, spec: { containers: [{ name: 'c' }] } }, 'shop');
    component.observe!(pod('by-webhook'), { ...decision, deferred: 'budget' }, 0.2);
    assert.ok(placed, 'the view subscribed to the placement controller');
    placed(pod('by-controller'), decision, 3);
    const data = (await json(`${url}/api/snapshot`)) as { decisions: { pod: string; by: string; outcome: string }[] };
    assert.deepEqual(
      data.decisions.map((d) => [d.pod, d.by, d.outcome]),
      [
        ['by-controller', 'controller', 'patched'],
        ['by-webhook', 'webhook', 'deferred'],
      ],
    );
  } finally {
    await component.stop();
  }
  assert.equal(placed, undefined, 'stopping unsubscribes');
});

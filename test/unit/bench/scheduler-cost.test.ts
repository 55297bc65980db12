// The scheduler's cost measured side by side: a stored Pod becomes a bare Pod
// without its node, owner or token volume; the ratio is the median of the
// rounds' ratios; the summary takes it over the arms run one after another.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import type { FabricResults } from '../../../bench/placement/fabric-summary.ts';
import { throughputRatio } from '../../../bench/placement/fabric-summary.ts';
import { costRatio, replayPod } from '../../../bench/placement/scheduler-cost.ts';

test('a stored Pod is created again bare: its placement and labels, not its node, owner or token', () => {
  const token = { name: 'kube-api-access-x1y2z', projected: { sources: [] } };
  const stored: V1Pod = {
    metadata: {
      name: 'cart-5f7-abcde',
      namespace: 'fx-shop-1',
      labels: { app: 'cart' },
      annotations: { 'topogate.dev/policies': 'p' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cart-5f7', uid: 'u' }],
      uid: 'pod-uid',
    },
    spec: {
      nodeName: 'n1',
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
      containers: [
        {
          name: 'c',
          volumeMounts: [
            { name: token.name, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
            { name: 'data', mountPath: '/data' },
          ],
        },
      ],
      volumes: [token, { name: 'data', emptyDir: {} }],
    },
    status: { phase: 'Running' },
  };
  assert.deepEqual(replayPod(stored, 'r-cart'), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'r-cart',
      namespace: 'fx-shop-1',
      labels: { app: 'cart' },
      annotations: { 'topogate.dev/policies': 'p' },
    },
    spec: {
      affinity: stored.spec!.affinity,
      containers: [{ name: 'c', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  });
});

test('the ratio is the median of each round’s topogate over default; a round without both is left out', () => {
  assert.equal(
    costRatio([
      { default: 10, topogate: 9 },
      { default: 10, topogate: 12 },
      { default: 5, topogate: 5 },
      { default: null, topogate: 1 },
    ]),
    1,
  );
  assert.equal(costRatio([{ default: 10, topogate: null }]), null);
});

test('the side-by-side ratio is the goal’s figure; without it, the arms’ one after another', () => {
  const arm = (podsPerSchedulingSecond: number) => ({ podsPerSchedulingSecond }) as never;
  const results = (schedulerCost: FabricResults['schedulerCost']): FabricResults => ({
    nodes: 4,
    seed: 1,
    arms: { default: arm(10), upstreamTas: null, kueueTas: null, topogate: arm(5) },
    schedulerCost,
    notes: [],
  });
  assert.equal(throughputRatio(results({ rounds: [], ratio: 0.97 })), 0.97);
  assert.equal(throughputRatio(results(null)), 0.5);
});

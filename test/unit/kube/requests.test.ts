import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podFacts } from '../../../src/kube/podFacts.ts';
import { effectiveRequests } from '../../../src/kube/requests.ts';
import type { Pod } from '../../../src/kube/types.ts';

/** The Pod's resources as the parser hands them to the core. */
const pod = (spec: Pod['spec']) => podFacts({ spec }, 'default').resources;

test('sums regular containers', () => {
  const requests = effectiveRequests(
    pod({
      containers: [
        { resources: { requests: { cpu: '500m', memory: '1Gi' } } },
        { resources: { requests: { cpu: 1 } } },
      ],
    }),
  );
  assert.deepEqual(requests, { cpu: 1500, memory: 2 ** 30 * 1000 });
});

test('the largest init container wins when it exceeds the container sum', () => {
  const requests = effectiveRequests(
    pod({
      containers: [{ resources: { requests: { cpu: '1' } } }],
      initContainers: [{ resources: { requests: { cpu: '3' } } }, { resources: { requests: { cpu: '2' } } }],
    }),
  );
  assert.equal(requests.cpu, 3000);
});

test('sidecars add to the containers and run beside later init containers', () => {
  const requests = effectiveRequests(
    pod({
      containers: [{ resources: { requests: { cpu: '1' } } }],
      initContainers: [
        { restartPolicy: 'Always', resources: { requests: { cpu: '1' } } },
        { resources: { requests: { cpu: '2500m' } } },
      ],
    }),
  );
  // containers + sidecar = 2; init 2.5 beside the 1-cpu sidecar = 3.5
  assert.equal(requests.cpu, 3500);
});

test('limits stand in for missing requests, and overhead is added', () => {
  const requests = effectiveRequests(
    pod({
      containers: [{ resources: { limits: { 'nvidia.com/gpu': 2, cpu: '2' }, requests: { cpu: '1' } } }],
      overhead: { cpu: '250m' },
    }),
  );
  assert.deepEqual(requests, { 'nvidia.com/gpu': 2000, cpu: 1250 });
});

test('pod-level requests replace the container sum for cpu and memory', () => {
  const requests = effectiveRequests(
    pod({
      resources: { requests: { cpu: '4' } },
      containers: [{ resources: { requests: { cpu: '1', memory: '1' } } }],
    }),
  );
  assert.deepEqual(requests, { cpu: 4000, memory: 1000 });
});

test('tolerates garbage', () => {
  assert.deepEqual(
    effectiveRequests(
      pod({ containers: 'x' as never, initContainers: [null as never, { resources: { requests: { cpu: 'lots' } } }] }),
    ),
    {},
  );
  assert.deepEqual(effectiveRequests(podFacts({}, 'default').resources), {});
  assert.deepEqual(effectiveRequests(podFacts('not a Pod', 'default').resources), {});
});

test('a request that does not parse leaves its limit in its place, in the order a spread of both would give', () => {
  const requests = effectiveRequests(
    pod({
      containers: [
        {
          resources: {
            limits: { memory: '2', cpu: '2', 'example.com/dongle': 'many' },
            requests: { 'example.com/foo': '1', cpu: 'lots', memory: '1', 'example.com/dongle': '3' },
          },
        },
        { resources: { requests: { 'example.com/bar': '1', cpu: '1' } } },
      ],
    }),
  );
  assert.deepEqual(Object.entries(requests), [
    ['memory', 1000],
    ['cpu', 3000],
    ['example.com/foo', 1000],
    ['example.com/dongle', 3000],
    ['example.com/bar', 1000],
  ]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podFacts } from '../../../src/kube/podFacts.ts';
import { qosClass as qosOfFacts } from '../../../src/kube/qos.ts';
import type { Container, Pod } from '../../../src/kube/types.ts';

/** The class of a Pod, parsed as the core reads it. */
const qosClass = (pod: Pod) => qosOfFacts(podFacts(pod, 'default').resources);
const withContainers = (...containers: Container[]) => qosClass({ spec: { containers } });

test('no cpu or memory anywhere is BestEffort', () => {
  assert.equal(withContainers({}), 'BestEffort');
  assert.equal(
    withContainers({ resources: { requests: { 'nvidia.com/gpu': 1 }, limits: { 'nvidia.com/gpu': 1 } } }),
    'BestEffort',
  );
  assert.equal(withContainers({ resources: { requests: { cpu: '0' } } }), 'BestEffort');
});

test('limits equal to requests for cpu and memory on every container is Guaranteed', () => {
  const full = { resources: { requests: { cpu: '2', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } } };
  assert.equal(withContainers(full, full), 'Guaranteed');
  assert.equal(
    withContainers({ resources: { limits: { cpu: '2', memory: '1Gi' } } }),
    'Guaranteed',
    'requests default to limits',
  );
});

test('anything else is Burstable', () => {
  assert.equal(withContainers({ resources: { requests: { cpu: '1' } } }), 'Burstable');
  assert.equal(
    withContainers({ resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } } }),
    'Burstable',
  );
  assert.equal(withContainers({ resources: { limits: { cpu: '1', memory: '1Gi' } } }, {}), 'Burstable');
});

test('init containers count', () => {
  const guaranteed = { resources: { limits: { cpu: '1', memory: '1Gi' } } };
  assert.equal(
    qosClass({ spec: { containers: [guaranteed], initContainers: [{ resources: { requests: { cpu: '1' } } }] } }),
    'Burstable',
  );
});

test('pod-level resources decide alone', () => {
  assert.equal(
    qosClass({ spec: { resources: { limits: { cpu: '1', memory: '1Gi' } }, containers: [{}] } }),
    'Guaranteed',
  );
});

test('a request of zero, or one that does not parse, is its limit', () => {
  const limits = { cpu: '1', memory: '1Gi' };
  assert.equal(withContainers({ resources: { requests: { cpu: '0', memory: 'lots' }, limits } }), 'Guaranteed');
  assert.equal(
    withContainers({ resources: { requests: { cpu: '0', memory: '1Gi' }, limits: { cpu: '0' } } }),
    'Burstable',
  );
});

test('requests and limits are compared as sums over the containers', () => {
  const half = { resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '500m', memory: '1Gi' } } };
  assert.equal(withContainers(half, { resources: { limits: { cpu: '1', memory: '2Gi' } } }), 'Guaranteed');
  assert.equal(withContainers(half, { resources: { limits: { cpu: '1', memory: 'x' } } }), 'Burstable');
});

// `topogate controlplane --output yaml` is YAML kubectl reads back as the status was: a zone named `on` (or
// `no`, `y`) stays a string, where a plain YAML 1.2 writer leaves it bare and kubectl reads `true`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatStatus, isStatusOutput } from '../../../src/controlplane/describe.ts';
import { documentValue, parseKubectlYaml } from '../../../src/kube/yaml.ts';
import type { ControlPlaneStatus } from '../../../src/ports/controlplane.ts';

const status: ControlPlaneStatus = {
  observedAt: '2026-12-05T12:00:00Z',
  windowSeconds: 60,
  scheduler: { leader: { holder: 'cp-1_abc', nodeName: 'cp-1', zone: 'on' } },
  etcd: { members: [{ name: 'no', isLeader: true, zone: 'y', peerRttMs: {} }] },
  findings: [],
  sources: {},
};

test('--output yaml quotes what YAML 1.1 would read as a boolean, so kubectl reads the status back whole', () => {
  const yaml = formatStatus(status, 'yaml');
  assert.match(yaml, /zone: "on"/);
  const [document] = parseKubectlYaml(yaml);
  assert.deepEqual(documentValue(document!), status);
});

test('--output json is the status object; text is for a person', () => {
  assert.deepEqual(JSON.parse(formatStatus(status, 'json')), status);
  assert.match(formatStatus(status, 'text'), /cp-1_abc on cp-1 \(on\)/);
  assert.deepEqual(['json', 'yaml', 'text', 'xml'].map(isStatusOutput), [true, true, true, false]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { KubeObject } from '../../../src/kube/types.ts';
import { createClusterPolicies } from '../../../src/sources/policies/clusterPolicies.ts';
import { parsePolicies } from '../../../src/policy/parse.ts';
import type { PolicyVersion } from '../../../src/ports/policies.ts';
import type { SchedulingPolicy } from '../../../src/policy/types.ts';
import { TopologyBuilder } from '../../../src/topology/builder.ts';
import type { TopologySnapshot } from '../../../src/topology/model.ts';
import { nvme, policyObject, ssd, tooBig, tooBigError } from './cluster-policies-cases.ts';
import { policy } from './loader-cases.ts';

const fromFile = parsePolicies(
  policy('rules: {spread: [{topologyKey: zone}]}', 'from-file'),
  'policies/p.yaml',
).policies;

/** The SchedulingPolicy source as the live topology shows it: real snapshots from the builder, objects as the informer holds them. */
function clusterSource() {
  const builder = new TopologyBuilder({ sources: ['schedulingPolicies'] });
  const listeners = new Set<(snapshot: TopologySnapshot) => void>();
  let snapshot = builder.publish();
  let objects: KubeObject[] = [];
  const publish = () => {
    snapshot = builder.publish();
    for (const listener of listeners) listener(snapshot);
  };
  return {
    current: () => snapshot,
    subscribe(listener: (snapshot: TopologySnapshot) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    objects: () => new Map([['schedulingPolicies' as const, objects]]),
    listeners: () => listeners.size,
    /** A full list: the source is synced and holds these. */
    list(next: KubeObject[]) {
      objects = next;
      builder.replace('schedulingPolicies', next, Date.now());
      publish();
    },
    /** The watch broke: the informer being set up again holds nothing yet. */
    fail(error: string) {
      objects = [];
      builder.fail('schedulingPolicies', error, Date.now());
      publish();
    },
    /** The CRD was deleted. */
    disable() {
      objects = [];
      builder.disable('schedulingPolicies', 'CRD schedulingpolicies.topogate.dev not installed', Date.now());
      publish();
    },
    refresh() {
      builder.refresh(Date.now());
      publish();
    },
  };
}

/** A directory store's face: a set that the test replaces. */
function directorySource(initial: readonly SchedulingPolicy[]) {
  const listeners = new Set<(set: PolicyVersion) => void>();
  let current: PolicyVersion = { version: 1, policies: initial };
  let stopped = false;
  return {
    current: () => current,
    readiness: () => ({ ready: true }),
    onChange(listener: (set: PolicyVersion) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      stopped = true;
    },
    stopped: () => stopped,
    set(policies: readonly SchedulingPolicy[]) {
      current = { version: current.version + 1, policies };
      for (const listener of listeners) listener(current);
    },
  };
}

function open(files: readonly SchedulingPolicy[] = fromFile) {
  const lines: { level: number; msg: string; errors?: string[] }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const cluster = clusterSource();
  const directory = directorySource(files);
  const registry = new Registry();
  const provider = createClusterPolicies({ directory, cluster, log, registry });
  const versions: number[] = [];
  provider.onChange((set) => versions.push(set.version));
  const names = () => provider.current().policies.map((p) => `${p.name} ${p.source?.file}`);
  const metric = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values[0]?.value;
  return { provider, cluster, directory, lines, versions, names, metric };
}

test('not ready until the SchedulingPolicy objects are first listed; then their policies join the files', () => {
  const { provider, cluster, names, versions } = open();
  assert.deepEqual(provider.readiness(), {
    ready: false,
    reason: 'waiting for the first sync of SchedulingPolicy objects',
  });
  assert.deepEqual(names(), ['from-file policies/p.yaml']);
  const before = provider.current().version;

  cluster.list([policyObject('alpha', nvme, '1')]);
  assert.deepEqual(provider.readiness(), { ready: true });
  assert.deepEqual(names(), ['from-file policies/p.yaml', 'alpha SchedulingPolicy/alpha']);
  assert.deepEqual(versions, [before + 1]);
});

test('a new version only when the combined set changes: a refresh or a relabelled object keeps it', () => {
  const { provider, cluster, versions } = open();
  cluster.list([policyObject('alpha', nvme, '1')]);
  const version = provider.current().version;
  cluster.refresh();
  cluster.list([policyObject('alpha', nvme, '2')]);
  assert.equal(provider.current().version, version);
  assert.equal(versions.length, 1);

  cluster.list([policyObject('alpha', ssd, '3')]);
  assert.equal(provider.current().version, version + 1);
  assert.deepEqual(provider.current().policies[1]?.rules.nodeLabels?.required, ssd.rules.nodeLabels.required);
});

test('an object edited into an invalid spec: logged once, said in readiness, and its last good version stays', async () => {
  const { provider, cluster, lines, names, metric } = open();
  cluster.list([policyObject('alpha', nvme, '1'), policyObject('beta', ssd, '1')]);
  const version = provider.current().version;

  cluster.list([policyObject('alpha', tooBig, '2'), policyObject('beta', ssd, '1')]);
  cluster.refresh();
  const error = `SchedulingPolicy/alpha: ${tooBigError}`;
  assert.deepEqual(provider.readiness(), {
    ready: true,
    reason: `invalid SchedulingPolicy objects, their last good versions stay in force: ${error}`,
  });
  assert.deepEqual(
    lines.filter((line) => line.level === 50).map((line) => [line.msg, line.errors]),
    [['SchedulingPolicy objects refused; the last good version of each stays in force', [error]]],
  );
  assert.equal(provider.current().version, version);
  assert.deepEqual(names(), [
    'from-file policies/p.yaml',
    'alpha SchedulingPolicy/alpha',
    'beta SchedulingPolicy/beta',
  ]);
  assert.deepEqual(provider.current().policies[1]?.rules.nodeLabels?.required, nvme.rules.nodeLabels.required);
  assert.equal(await metric('topogate_policy_objects_invalid'), 1);
  assert.equal(await metric('topogate_policy_objects_loaded'), 2);

  cluster.list([policyObject('alpha', ssd, '3'), policyObject('beta', ssd, '1')]);
  assert.deepEqual(provider.readiness(), { ready: true });
  assert.ok(lines.some((line) => line.msg === 'no SchedulingPolicy object is refused any more'));
  assert.equal(await metric('topogate_policy_objects_invalid'), 0);
});

test('an object that was never valid is absent; deleting an object removes its policy', () => {
  const { cluster, names } = open([]);
  cluster.list([policyObject('alpha', nvme, '1'), policyObject('big', tooBig, '1')]);
  assert.deepEqual(names(), ['alpha SchedulingPolicy/alpha']);
  cluster.list([policyObject('big', tooBig, '1')]);
  assert.deepEqual(names(), []);
});

test('out of contact the objects seen last stay in force; when the CRD is removed they go', () => {
  const { provider, cluster, names } = open([]);
  cluster.list([policyObject('alpha', nvme, '1')]);
  cluster.fail('connect ECONNREFUSED 127.0.0.1:6443');
  assert.deepEqual(names(), ['alpha SchedulingPolicy/alpha']);
  assert.equal(provider.readiness().ready, true);
  cluster.disable();
  assert.deepEqual(names(), []);
  assert.equal(provider.readiness().ready, true);
});

test('a file policy and an object of the same name: the file wins, the object is reported', () => {
  const { provider, cluster, names } = open();
  cluster.list([policyObject('from-file', nvme, '1')]);
  assert.deepEqual(names(), ['from-file policies/p.yaml']);
  assert.match(
    provider.readiness().reason ?? '',
    /SchedulingPolicy\/from-file: metadata.name: duplicate policy name "from-file" \(first defined at policies\/p.yaml:3:/,
  );
});

test('a new directory set is combined with the objects; stop stops the directory and listens no more', async () => {
  const { provider, cluster, directory, names, versions } = open();
  cluster.list([policyObject('alpha', nvme, '1')]);
  directory.set([]);
  assert.deepEqual(names(), ['alpha SchedulingPolicy/alpha']);
  assert.equal(versions.length, 2);
  await provider.stop();
  assert.ok(directory.stopped());
  assert.equal(cluster.listeners(), 0);
  cluster.list([]);
  assert.deepEqual(names(), ['alpha SchedulingPolicy/alpha']);
});

test('without the CRD the files alone are in force, and ready', () => {
  const { provider, cluster, names } = open();
  cluster.disable();
  assert.deepEqual(provider.readiness(), { ready: true });
  assert.deepEqual(names(), ['from-file policies/p.yaml']);
});

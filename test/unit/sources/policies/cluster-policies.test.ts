import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { KubeObject } from '../../../../src/kube/types.ts';
import { createClusterPolicies } from '../../../../src/sources/policies/clusterPolicies.ts';
import { parsePolicies } from '../../../../src/policy/parse.ts';
import type { PolicyVersion } from '../../../../src/ports/policies.ts';
import type { SchedulingPolicy } from '../../../../src/policy/types.ts';
import { PolicyObjects } from '../../../../src/sources/policies/objects.ts';
import { nvme, policyObject, ssd, tooBig, tooBigError } from '../../policy/cluster-policies-cases.ts';
import { policy } from '../../policy/loader-cases.ts';

const fromFile = parsePolicies(
  policy('rules: {spread: [{topologyKey: zone}]}', 'from-file'),
  'policies/p.yaml',
).policies;

/** The SchedulingPolicy objects as their informer delivers them to the real sink; each step awaits its notice. */
function clusterSource() {
  const sink = new PolicyObjects(pino({ level: 'silent' }));
  const noticed = () => new Promise((resolve) => setImmediate(resolve));
  let stopped = false;
  return {
    objects: () => sink.objects(),
    status: () => sink.status(),
    subscribe: (listener: () => void) => sink.subscribe(listener),
    async stop() {
      stopped = true;
      await sink.stop();
    },
    stopped: () => stopped,
    /** A full list (the first, or the relist after a lost watch). */
    async list(next: KubeObject[]) {
      sink.replace('schedulingPolicies', next);
      await noticed();
    },
    /** The watch broke: its objects are those seen last. */
    async fail(error: string) {
      sink.fail('schedulingPolicies', error);
      await noticed();
    },
    /** The CRD was deleted. */
    async disable() {
      sink.disable('schedulingPolicies', 'CRD schedulingpolicies.topogate.dev not installed');
      await noticed();
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

test('not ready until the SchedulingPolicy objects are first listed; then their policies join the files', async () => {
  const { provider, cluster, names, versions } = open();
  assert.deepEqual(provider.readiness(), {
    ready: false,
    reason: 'waiting for the first sync of SchedulingPolicy objects',
  });
  assert.deepEqual(names(), ['from-file policies/p.yaml']);
  const before = provider.current().version;

  await cluster.list([policyObject('alpha', nvme, '1')]);
  assert.deepEqual(provider.readiness(), { ready: true });
  assert.deepEqual(names(), ['from-file policies/p.yaml', 'alpha SchedulingPolicy/alpha']);
  assert.deepEqual(versions, [before + 1]);
});

test('a new version only when the combined set changes: a relist or a relabelled object keeps it', async () => {
  const { provider, cluster, versions } = open();
  await cluster.list([policyObject('alpha', nvme, '1')]);
  const version = provider.current().version;
  await cluster.list([policyObject('alpha', nvme, '2')]);
  assert.equal(provider.current().version, version);
  assert.equal(versions.length, 1);

  await cluster.list([policyObject('alpha', ssd, '3')]);
  assert.equal(provider.current().version, version + 1);
  assert.deepEqual(provider.current().policies[1]?.rules.nodeLabels?.required, ssd.rules.nodeLabels.required);
});

test('an object edited into an invalid spec: logged once, said in readiness, and its last good version stays', async () => {
  const { provider, cluster, lines, names, metric } = open();
  await cluster.list([policyObject('alpha', nvme, '1'), policyObject('beta', ssd, '1')]);
  const version = provider.current().version;

  await cluster.list([policyObject('alpha', tooBig, '2'), policyObject('beta', ssd, '1')]);
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

  await cluster.list([policyObject('alpha', ssd, '3'), policyObject('beta', ssd, '1')]);
  assert.deepEqual(provider.readiness(), { ready: true });
  assert.ok(lines.some((line) => line.msg === 'no SchedulingPolicy object is refused any more'));
  assert.equal(await metric('topogate_policy_objects_invalid'), 0);
});

test('an object that was never valid is absent; deleting an object removes its policy', async () => {
  const { cluster, names } = open([]);
  await cluster.list([policyObject('alpha', nvme, '1'), policyObject('big', tooBig, '1')]);
  assert.deepEqual(names(), ['alpha SchedulingPolicy/alpha']);
  await cluster.list([policyObject('big', tooBig, '1')]);
  assert.deepEqual(names(), []);
});

test('out of contact the objects seen last stay in force; when the CRD is removed they go', async () => {
  const { provider, cluster, names } = open([]);
  await cluster.list([policyObject('alpha', nvme, '1')]);
  await cluster.fail('connect ECONNREFUSED 127.0.0.1:6443');
  assert.deepEqual(names(), ['alpha SchedulingPolicy/alpha']);
  assert.equal(provider.readiness().ready, true);
  await cluster.disable();
  assert.deepEqual(names(), []);
  assert.equal(provider.readiness().ready, true);
});

test('a file policy and an object of the same name: the file wins, the object is reported', async () => {
  const { provider, cluster, names } = open();
  await cluster.list([policyObject('from-file', nvme, '1')]);
  assert.deepEqual(names(), ['from-file policies/p.yaml']);
  assert.match(
    provider.readiness().reason ?? '',
    /SchedulingPolicy\/from-file: metadata.name: duplicate policy name "from-file" \(first defined at policies\/p.yaml:3:/,
  );
});

test('a new directory set is combined with the objects; stop stops the directory and listens no more', async () => {
  const { provider, cluster, directory, names, versions } = open();
  await cluster.list([policyObject('alpha', nvme, '1')]);
  directory.set([]);
  assert.deepEqual(names(), ['alpha SchedulingPolicy/alpha']);
  assert.equal(versions.length, 2);
  await provider.stop();
  assert.ok(directory.stopped());
  assert.ok(cluster.stopped(), 'the informer stops with the provider');
  await cluster.list([]);
  assert.deepEqual(names(), ['alpha SchedulingPolicy/alpha']);
});

test('without the CRD the files alone are in force, and ready', async () => {
  const { provider, cluster, names } = open();
  await cluster.disable();
  assert.deepEqual(provider.readiness(), { ready: true });
  assert.deepEqual(names(), ['from-file policies/p.yaml']);
});

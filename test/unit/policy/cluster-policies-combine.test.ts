import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combinePolicies, readPolicyObjects, samePolicies, type ObjectReadings } from '../../../src/policy/combine.ts';
import { formatPolicyError } from '../../../src/policy/errors.ts';
import { parsePolicies } from '../../../src/policy/parse.ts';
import { policy } from './loader-cases.ts';
import { nvme, policyObject, ssd, tooBig, tooBigError } from './cluster-policies-cases.ts';

const directory = parsePolicies(
  `${policy('rules: {spread: [{topologyKey: zone}]}', 'from-file')}---\n${policy('rules: {numa: {}}', 'shared')}`,
  'policies/p.yaml',
).policies;
const none: ObjectReadings = new Map();

const describe = (set: ReturnType<typeof combinePolicies>) => ({
  policies: set.policies.map((p) => `${p.name} ${p.source?.file}`),
  errors: set.errors.map(formatPolicyError),
});

test('the files come first, then the valid objects by name, each named SchedulingPolicy/NAME', () => {
  const readings = readPolicyObjects([policyObject('zeta', ssd, '2'), policyObject('alpha', nvme, '1')], none);
  assert.deepEqual(describe(combinePolicies(directory, readings)), {
    policies: [
      'from-file policies/p.yaml',
      'shared policies/p.yaml',
      'alpha SchedulingPolicy/alpha',
      'zeta SchedulingPolicy/zeta',
    ],
    errors: [],
  });
  assert.deepEqual(
    combinePolicies(directory, readings).policies[2]?.rules.nodeLabels?.required,
    nvme.rules.nodeLabels.required,
  );
});

test('an invalid object that never had a good version is absent, and its error names the object and the field', () => {
  const readings = readPolicyObjects([policyObject('big', tooBig, '1'), policyObject('alpha', nvme, '1')], none);
  assert.deepEqual(describe(combinePolicies([], readings)), {
    policies: ['alpha SchedulingPolicy/alpha'],
    errors: [`SchedulingPolicy/big: ${tooBigError}`],
  });
});

test('an object edited into an invalid spec keeps its last good version in force until it is valid again', () => {
  const good = readPolicyObjects([policyObject('alpha', nvme, '1')], none);
  const broken = readPolicyObjects([policyObject('alpha', tooBig, '2')], good);
  const combined = combinePolicies([], broken);
  assert.deepEqual(describe(combined), {
    policies: ['alpha SchedulingPolicy/alpha'],
    errors: [`SchedulingPolicy/alpha: ${tooBigError}`],
  });
  assert.equal(combined.policies[0], good.get('alpha')?.policy);

  const brokenAgain = readPolicyObjects([policyObject('alpha', { rules: {} }, '3')], broken);
  assert.equal(combinePolicies([], brokenAgain).policies[0], good.get('alpha')?.policy);
  assert.deepEqual(describe(combinePolicies([], brokenAgain)).errors, [
    'SchedulingPolicy/alpha: spec.rules: needs at least one rule: nodeLabels, gpu, numa, latency, bandwidth, pack, colocate, spread or dra',
  ]);

  const fixed = combinePolicies([], readPolicyObjects([policyObject('alpha', ssd, '4')], brokenAgain));
  assert.deepEqual(fixed.errors, []);
  assert.deepEqual(fixed.policies[0]?.rules.nodeLabels?.required, ssd.rules.nodeLabels.required);
});

test('a deleted object takes its policy with it, its last good version too', () => {
  const broken = readPolicyObjects(
    [policyObject('alpha', tooBig, '2')],
    readPolicyObjects([policyObject('alpha', nvme, '1')], none),
  );
  assert.equal(combinePolicies([], broken).policies.length, 1);
  const deleted = readPolicyObjects([], broken);
  assert.deepEqual(describe(combinePolicies([], deleted)), { policies: [], errors: [] });
  assert.deepEqual(
    describe(combinePolicies([], readPolicyObjects([policyObject('alpha', tooBig, '5')], deleted))).policies,
    [],
  );
});

test('a name used by a file and an object: the file wins and the object is reported', () => {
  const readings = readPolicyObjects([policyObject('shared', nvme, '1')], none);
  const combined = combinePolicies(directory, readings);
  assert.deepEqual(describe(combined), {
    policies: ['from-file policies/p.yaml', 'shared policies/p.yaml'],
    errors: [
      'SchedulingPolicy/shared: metadata.name: duplicate policy name "shared" (first defined at policies/p.yaml:9:18)',
    ],
  });
  assert.ok(combined.policies[1]?.rules.numa);
});

test('an unchanged revision is not read again, and a new revision with the same spec keeps the same policy', () => {
  const first = readPolicyObjects([policyObject('alpha', nvme, '1')], none);
  const same = readPolicyObjects([policyObject('alpha', nvme, '1')], first);
  assert.equal(same.get('alpha'), first.get('alpha'));
  // A label edit: a new resourceVersion, the same policy: the set compares equal, nothing recompiles.
  const relabelled = readPolicyObjects([policyObject('alpha', nvme, '2')], first);
  assert.notEqual(relabelled.get('alpha'), first.get('alpha'));
  assert.ok(samePolicies(combinePolicies(directory, first).policies, combinePolicies(directory, relabelled).policies));
  const edited = readPolicyObjects([policyObject('alpha', ssd, '3')], relabelled);
  assert.ok(
    !samePolicies(combinePolicies(directory, relabelled).policies, combinePolicies(directory, edited).policies),
  );
});

test('objects without a resourceVersion are compared by their content', () => {
  const first = readPolicyObjects([policyObject('alpha', nvme)], none);
  assert.equal(readPolicyObjects([policyObject('alpha', nvme)], first).get('alpha'), first.get('alpha'));
  assert.deepEqual(
    readPolicyObjects([policyObject('alpha', ssd)], first).get('alpha')?.policy?.rules.nodeLabels?.required,
    ssd.rules.nodeLabels.required,
  );
});

test('samePolicies compares by reference and order', () => {
  const [a, b] = directory as [(typeof directory)[0], (typeof directory)[0]];
  assert.ok(samePolicies([a, b], [a, b]));
  assert.ok(!samePolicies([a, b], [b, a]));
  assert.ok(!samePolicies([a], [a, b]));
  assert.ok(!samePolicies([a], [{ ...a }]));
});

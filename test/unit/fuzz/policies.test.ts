// Fuzzing what a policy author controls: the example policies of policies/
// spoiled at random (small values: the loader refuses files over 4 MiB), written as YAML and loaded as the policy store loads a
// file. The loader never throws; every problem it reports is located; and
// whatever it accepts compiles against the demo cluster and decides every
// real-world Pod without throwing, with a patch that applies.

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import type { Pod } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { parsePolicies } from '../../../src/policy/parse.ts';
import type { TopologySnapshot } from '../../../src/topology/model.ts';
import { basePods, fuzzRuns, fuzzSeed, mutated, namespaces, prototypeFingerprint, smallGarbage } from './corpus.ts';
import { demoOptions, demoPolicyObjects, demoSnapshot } from './demo.ts';
import { assertValidDecision } from './verify.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';

let snapshot: TopologySnapshot;
before(async () => {
  snapshot = await demoSnapshot();
});

const policyFiles = fc
  .array(mutated(demoPolicyObjects(), smallGarbage), { minLength: 1, maxLength: 3 })
  .map((documents) => documents.map((document) => stringify(document)).join('---\n'));

test('spoiled policy files: the loader never throws and locates every problem; what it accepts compiles and decides every Pod', (t) => {
  const fingerprint = prototypeFingerprint();
  let accepted = 0;
  fc.assert(
    fc.property(policyFiles, fc.constantFrom(...namespaces), (text, namespace) => {
      const { policies, errors } = parsePolicies(text, 'fuzz.yaml');
      for (const error of errors) {
        assert.equal(error.file, 'fuzz.yaml');
        assert.ok(
          Number.isInteger(error.line) && error.line >= 1 && Number.isInteger(error.col) && error.col >= 1,
          `located: ${JSON.stringify(error)}`,
        );
        assert.ok(typeof error.message === 'string' && error.message.length > 0);
      }
      if (policies.length === 0) return;
      accepted++;
      const compiled = compile(policies, snapshot);
      for (const pod of basePods)
        assertValidDecision(decide(podRequest(pod as Pod, namespace), compiled, demoOptions), pod);
      assert.equal(prototypeFingerprint(), fingerprint, 'no prototype gained a property');
    }),
    { numRuns: fuzzRuns(150), seed: fuzzSeed() },
  );
  t.diagnostic(`${accepted} spoiled files loaded and were compiled and decided`);
  assert.ok(accepted > 0, 'some spoiled files still load, so compile and decide are fuzzed too');
});

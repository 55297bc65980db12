// Fuzzing the decision core: real-world Pods spoiled at random, decided by
// `decide` against the demo policies and cluster. Whatever the Pod, the
// decision does not throw, is well formed, has a patch that applies, leaves
// the Pod as it was and adds nothing to any built-in prototype.

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { encodeReview } from '../../../src/admission/encode.ts';
import { handleAdmission } from '../../../src/admission/handler.ts';
import type { Pod } from '../../../src/kube/types.ts';
import type { CompiledPolicySet } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import {
  basePods,
  fuzzRuns,
  fuzzSeed,
  garbage,
  mutated,
  namespaces,
  podCreateReview,
  prototypeFingerprint,
} from './corpus.ts';
import { demoCompiled, demoOptions } from './demo.ts';
import { assertValidDecision, assertValidResponse } from './verify.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';

let compiled: CompiledPolicySet;
before(async () => {
  compiled = await demoCompiled();
});

// decide's contract is a Pod object: decodeReview refuses any other request.object with a 400 (https.test.ts
// fuzzes that path), so here only what is inside the object is spoiled.
const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);
const pods = fc.oneof({ weight: 4, arbitrary: mutated(basePods) }, { weight: 1, arbitrary: garbage }).filter(isObject);

test("the corpus reaches the rules: unspoiled fixture Pods are patched in the policies' namespaces", () => {
  const patched = basePods.filter(
    (pod) => decide(podRequest(pod as Pod, 'ml-training'), compiled, demoOptions).patch.length > 0,
  );
  assert.ok(patched.length >= 3, `only ${patched.length} of ${basePods.length} fixture Pods were patched`);
});

test('decide never throws on spoiled Pods; its decision is well formed, its patch applies, the Pod and the prototypes are untouched', () => {
  const fingerprint = prototypeFingerprint();
  fc.assert(
    fc.property(pods, fc.constantFrom(...namespaces), (pod, namespace) => {
      const before = JSON.stringify(pod);
      const decision = decide(podRequest(pod as Pod, namespace), compiled, demoOptions);
      assertValidDecision(decision, pod);
      assert.equal(JSON.stringify(pod), before, 'decide does not change the Pod it was given');
      assert.equal(prototypeFingerprint(), fingerprint, 'no prototype gained a property');
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    }),
    { numRuns: fuzzRuns(250), seed: fuzzSeed() },
  );
});

test('the handler turns every such decision into an answer the API server accepts', () => {
  fc.assert(
    fc.property(
      pods,
      fc.constantFrom(...namespaces),
      fc.string({ minLength: 1, maxLength: 40 }),
      (pod, namespace, uid) => {
        const review = podCreateReview(pod, uid, namespace) as {
          apiVersion: 'admission.k8s.io/v1';
          request: Parameters<typeof handleAdmission>[0];
        };
        const { answer } = handleAdmission(review.request, {
          decide: (request) => decide(request, compiled, demoOptions),
        });
        assertValidResponse(review, JSON.parse(encodeReview(review, answer)));
      },
    ),
    { numRuns: fuzzRuns(120), seed: fuzzSeed() + 1 },
  );
});

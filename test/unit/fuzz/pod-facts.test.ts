// Fuzzing the one Pod parser, podFacts(): real-world Pods spoiled at random (wrong types, prototype keys,
// huge and deep values) and random JSON. Whatever the input, it does not throw, gives facts that are plain
// JSON (the memo key is their JSON text) sharing no object with the input (they are read-only by type, not
// frozen: a later change to the Pod must not reach them), gives the same facts again for the same Pod (a
// clone, or its JSON text parsed anew), leaves its input as it was, and adds nothing to any prototype.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { podFacts } from '../../../src/kube/podFacts.ts';
import { basePods, fuzzRuns, fuzzSeed, garbage, mutated, namespaces, prototypeFingerprint } from './corpus.ts';

/** Objects JSON.parse makes that String() cannot print: their own toString or valueOf is no function. */
const unprintable = fc.constantFrom<unknown>(
  JSON.parse('{"toString": 1}'),
  JSON.parse('{"toString": "x", "valueOf": "y"}'),
  JSON.parse('[{"toString": []}]'),
);
const inputs = fc.oneof(
  { weight: 4, arbitrary: mutated(basePods, fc.oneof(garbage, unprintable)) },
  { weight: 1, arbitrary: garbage },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 6 }) },
);
const settings = { numRuns: fuzzRuns(300), seed: fuzzSeed() };

/** Where `value` holds anything but plain JSON (undefined stands for an absent optional fact). */
function notPlainJson(value: unknown, path = 'facts'): string | undefined {
  if (value === undefined || value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path}: ${value}`;
  if (typeof value !== 'object') return `${path}: a ${typeof value}`;
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null)
    return `${path}: not a plain object`;
  for (const [key, item] of Object.entries(value)) {
    const found = notPlainJson(item, `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

/** Every object and array inside `value`. */
function objectsIn(value: unknown, found = new Set<object>()): Set<object> {
  if (typeof value !== 'object' || value === null || found.has(value)) return found;
  found.add(value);
  for (const item of Object.values(value)) objectsIn(item, found);
  return found;
}

test('values String() cannot print, where podFacts reads text (a node selector, an operator, the annotation)', () => {
  const [object] = JSON.parse('[{"toString": 1}]') as unknown[];
  const facts = podFacts(
    {
      metadata: { annotations: { 'topogate.dev/policies': object } },
      spec: {
        nodeSelector: { disk: object },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: object }] }],
            },
          },
        },
      },
    },
    'default',
  );
  assert.equal(facts.decidedBy, '{"toString":1}');
  assert.deepEqual(facts.placement.nodeSelector, { disk: '{"toString":1}' });
  assert.equal(facts.placement.requiredTerms?.[0]?.matchExpressions[0]?.operator, '{"toString":1}');
});

test('the corpus reaches the parser: an unspoiled fixture Pod has labels, containers and requests', () => {
  const facts = basePods.map((pod) => podFacts(pod, 'default'));
  assert.ok(facts.some((fact) => Object.keys(fact.labels).length > 0));
  assert.ok(facts.some((fact) => fact.resources.containers.some((c) => Object.keys(c.resources.requests).length > 0)));
  assert.ok(facts.some((fact) => fact.placement.requiredTerms !== undefined || fact.placement.tolerations.length > 0));
});

test('any input: no throw; plain JSON sharing nothing with the input; the same facts again; the input untouched', () => {
  const prototypes = prototypeFingerprint();
  fc.assert(
    fc.property(inputs, fc.constantFrom(...namespaces), (input, namespace) => {
      const before = structuredClone(input);
      const facts = podFacts(input, namespace);
      assert.equal(notPlainJson(facts), undefined);
      assert.equal(facts.namespace, namespace);
      assert.deepEqual(input, before, 'podFacts changes nothing of its input');
      const inputObjects = objectsIn(input);
      assert.equal(
        [...objectsIn(facts)].some((object) => inputObjects.has(object)),
        false,
        'the facts share no object with the input',
      );
      assert.deepEqual(podFacts(before, namespace), facts, 'a clone of the Pod has the same facts');
      // Wrapped, as the input may be undefined (a mutation deleted it), which JSON has no text for.
      const reparsed = (JSON.parse(JSON.stringify({ input })) as { input?: unknown }).input;
      assert.equal(JSON.stringify(podFacts(reparsed, namespace)), JSON.stringify(facts), 'so has its JSON text');
      assert.equal(prototypeFingerprint(), prototypes);
    }),
    settings,
  );
});

// The facts keep exactly the members of the right type, in the Pod's key order, and a "__proto__" key
// (which JSON.parse makes an own member) stays an own member: never the facts' prototype.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podFacts } from '../../../src/kube/podFacts.ts';

test('labels keep the string members and quantities those that parse, in milli-units, in order', () => {
  const pod = JSON.parse(
    '{"metadata":{"labels":{"b":"2","n":3,"a":"1","o":{}}},"spec":{"containers":[{"resources":{"requests":{"memory":"1Gi","x":true,"cpu":2,"gpu":"lots"}}}]}}',
  );
  const facts = podFacts(pod, 'default');
  assert.deepEqual(Object.entries(facts.labels), [
    ['b', '2'],
    ['a', '1'],
  ]);
  assert.deepEqual(Object.entries(facts.resources.containers[0]!.resources.requests), [
    ['memory', 2 ** 30 * 1000],
    ['cpu', 2000],
  ]);
});

test('a "__proto__" label is an own member of the facts, not their prototype', () => {
  const facts = podFacts(JSON.parse('{"metadata":{"labels":{"__proto__":"x","app":"web"}}}'), 'default');
  assert.equal(Object.getPrototypeOf(facts.labels), Object.prototype);
  assert.deepEqual(Object.keys(facts.labels), ['__proto__', 'app']);
  assert.equal(JSON.stringify(facts.labels), '{"__proto__":"x","app":"web"}');
});

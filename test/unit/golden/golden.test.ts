// Decisions stay byte-identical across reworks of the engine: each case's
// decision (three times over, so that the memo answers the later ones) and
// its explain trace digest to what golden.json recorded.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { decide } from '../../../src/policy/engine.ts';
import { digest, goldenCases } from './cases.ts';

const golden = JSON.parse(readFileSync(new URL('golden.json', import.meta.url), 'utf8')) as Record<
  string,
  { decision: string; explained: string }
>;

test('every recorded decision and trace is made again, byte for byte', async () => {
  const cases = await goldenCases();
  assert.deepEqual(cases.map((each) => each.label).sort(), Object.keys(golden).sort(), 'the same cases');
  const changed: string[] = [];
  for (let round = 0; round < 3; round++) {
    for (const { label, pod, namespace, compiled, options } of cases) {
      if (digest(decide(podRequest(pod, namespace), compiled, options), compiled) !== golden[label]!.decision)
        changed.push(`${label} (round ${round})`);
    }
  }
  for (const { label, pod, namespace, compiled, options } of cases) {
    if (
      digest(decide(podRequest(pod, namespace), compiled, { ...options, explain: true }), compiled) !==
      golden[label]!.explained
    )
      changed.push(`${label} (explained)`);
  }
  assert.deepEqual(changed, []);
});

// Records golden.json and golden-answers.json from the current code: node test/unit/golden/record.ts
// Run it only when decisions are meant to change, and say why in the commit.

import { writeFileSync } from 'node:fs';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { decide } from '../../../src/policy/engine.ts';
import { answerCases, answerDigest } from './answers.ts';
import { digest, goldenCases } from './cases.ts';

const golden: Record<string, { decision: string; explained: string }> = {};
for (const { label, pod, namespace, compiled, options } of await goldenCases()) {
  golden[label] = {
    decision: digest(decide(podRequest(pod, namespace), compiled, options), compiled),
    explained: digest(decide(podRequest(pod, namespace), compiled, { ...options, explain: true }), compiled),
  };
}
writeFileSync(new URL('golden.json', import.meta.url), `${JSON.stringify(golden, null, 1)}\n`);
console.log(`${Object.keys(golden).length} decisions recorded`);

const answers: Record<string, string> = {};
for (const { label, answer } of await answerCases()) answers[label] = answerDigest(await answer());
writeFileSync(new URL('golden-answers.json', import.meta.url), `${JSON.stringify(answers, null, 1)}\n`);
console.log(`${Object.keys(answers).length} answers recorded`);

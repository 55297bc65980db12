// The webhook's answers stay byte-identical across reworks of the request
// path (parsing, encoding, the HTTP layer): each case's response body, three
// times over (the second time the decision memo answers, the third the review
// memo gives the parsed request), digests to what golden-answers.json recorded.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { answerCases, answerDigest } from './answers.ts';

const golden = JSON.parse(readFileSync(new URL('golden-answers.json', import.meta.url), 'utf8')) as Record<
  string,
  string
>;

test('every recorded /mutate answer is given again, byte for byte', async () => {
  const cases = await answerCases();
  assert.deepEqual(cases.map((each) => each.label).sort(), Object.keys(golden).sort(), 'the same cases');
  const changed: string[] = [];
  for (let round = 0; round < 3; round++)
    for (const { label, answer } of cases)
      if (answerDigest(await answer()) !== golden[label]) changed.push(`${label} (round ${round})`);
  assert.deepEqual(changed, []);
});

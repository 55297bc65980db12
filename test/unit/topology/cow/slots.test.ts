// Slots by chunk, copied on write: every frozen view reads the slots as they were when it was frozen, whatever
// was set after, across chunks and as the slots grow; a freeze with no change between gives the same view.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CowSlots } from '../../../../src/topology/cow/slots.ts';

test('each frozen view keeps the slots of its own moment', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.option(fc.string(), { nil: undefined }), fc.boolean()), {
        maxLength: 200,
      }),
      (steps) => {
        const slots = new CowSlots<string>();
        const plain: (string | undefined)[] = [];
        const frozen: { view: ReturnType<CowSlots<string>['freeze']>; then: (string | undefined)[] }[] = [];
        for (const [slot, value, freeze] of steps) {
          slots.set(slot, value);
          plain[slot] = value;
          if (freeze) frozen.push({ view: slots.freeze(), then: [...plain] });
        }
        frozen.push({ view: slots.freeze(), then: [...plain] });
        for (const { view, then } of frozen)
          for (const [slot] of steps) assert.equal(view.get(slot), then[slot], `slot ${slot}`);
        assert.equal(slots.freeze(), frozen.at(-1)!.view, 'no change: the same view');
        assert.equal(slots.freeze().get(1 << 20), undefined, 'past every chunk: nothing');
      },
    ),
    { numRuns: 200 },
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leastDisturbed, rulesVerdicts, type RulesReport } from '../../../bench/rules-report.ts';
import type { Percentiles } from '../../../bench/stats.ts';

const us = (p50: number): Percentiles => ({ p50, p99: p50 * 4, max: p50 * 10, count: 3_000 });

const report = (nodes: number, pack: number, gpu: number): RulesReport => ({
  nodes,
  domains: nodes / 40,
  results: [
    { name: 'pack', us: us(pack) },
    { name: 'gpu', us: us(gpu) },
  ],
});

test('each size and case keeps its round with the lowest p50, the p99 of that round with it', () => {
  const rounds = [
    [report(100, 10, 30), report(10_000, 40, 12)],
    [report(100, 25, 9), report(10_000, 11, 50)],
  ];
  const kept = leastDisturbed(rounds);
  assert.deepEqual(
    kept.map((size) => [size.nodes, size.results.map(({ name, us }) => [name, us.p50, us.p99])]),
    [
      [
        100,
        [
          ['pack', 10, 40],
          ['gpu', 9, 36],
        ],
      ],
      [
        10_000,
        [
          ['pack', 11, 44],
          ['gpu', 12, 48],
        ],
      ],
    ],
  );
  // One round alone, the 100-node round ran in a faster minute: pack looked 4x worse at 10,000 nodes.
  assert.equal(rulesVerdicts(rounds[0]!)[0]?.flat, false);
  assert.deepEqual(
    rulesVerdicts(kept).map(({ name, flat }) => [name, flat]),
    [
      ['pack', true],
      ['gpu', true],
    ],
  );
});

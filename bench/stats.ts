// The percentiles every section of the report states, by src/stats/order.ts's definitions.

import { quantileSorted } from '../src/stats/order.ts';

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly count: number;
}

export function percentiles(samples: ArrayLike<number>): Percentiles {
  const sorted = Float64Array.from(samples).sort();
  return {
    p50: quantileSorted(sorted, 0.5),
    p99: quantileSorted(sorted, 0.99),
    max: quantileSorted(sorted, 1),
    count: sorted.length,
  };
}

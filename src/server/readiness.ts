// /readyz: ready once every check is (policies loaded, each topology source
// synced). The detail says what is missing, and what is degraded while ready
// (a failed policy reload that left the last good set in place).

import type { Readiness } from '../ports/readiness.ts';

export type ReadinessChecks = Readonly<Record<string, () => Readiness>>;

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, Readiness>>;
}

export function checkReadiness(checks: ReadinessChecks): ReadinessReport {
  const results = Object.fromEntries(Object.entries(checks).map(([name, check]) => [name, safely(check)]));
  return { ready: Object.values(results).every((result) => result.ready), checks: results };
}

function safely(check: () => Readiness): Readiness {
  try {
    return check();
  } catch (error) {
    return { ready: false, reason: `the check failed: ${(error as Error).message}` };
  }
}

/** As Kubernetes' own /readyz?verbose: one [+] or [-] line per check. */
export function readinessText({ ready, checks }: ReadinessReport): string {
  const lines = Object.entries(checks).map(
    ([name, { ready: ok, reason }]) =>
      `[${ok ? '+' : '-'}]${name} ${ok ? 'ok' : 'not ready'}${reason ? `: ${reason}` : ''}`,
  );
  return `${[...lines, ready ? 'readyz check passed' : 'readyz check failed'].join('\n')}\n`;
}

// A new policy set told to its listeners: one listener's failure is logged, and the others are still told.

import type { Logger } from 'pino';
import type { PolicyVersion } from '../../ports/policies.ts';

export function notifyAll(log: Logger, listeners: Iterable<(set: PolicyVersion) => void>, set: PolicyVersion): void {
  for (const listener of listeners) {
    try {
      listener(set);
    } catch (error) {
      log.error({ err: error }, 'a policy change listener failed');
    }
  }
}

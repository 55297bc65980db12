// What every shell component of serve is given: there is no global logger or registry.

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export interface Shell {
  readonly log: Logger;
  readonly registry: Registry;
}

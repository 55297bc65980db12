// --log-level.

import { text, type FlagGroup } from './flag-group.ts';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface LoggingFlags {
  readonly logLevel: string;
}

export const loggingFlags: FlagGroup<LoggingFlags> = {
  options: { 'log-level': { type: 'string', default: 'info' } },
  help: `  --log-level L          ${logLevels.join(', ')} (default info; debug logs one line per request)`,
  parse(values) {
    const logLevel = text(values, 'log-level') ?? '';
    if (!logLevels.includes(logLevel))
      return { error: `--log-level must be one of ${logLevels.join(', ')}, not "${logLevel}"` };
    return { config: { logLevel } };
  },
};

// --policies: the SchedulingPolicy files.

import { join, resolve } from 'node:path';
import { text, type FlagGroup } from './flag-group.ts';
import { packageRoot } from './package-root.ts';

export interface PolicyFlags {
  readonly policies: string;
}

export const policyFlags: FlagGroup<PolicyFlags> = {
  options: { policies: { type: 'string' } },
  help: `  --policies DIR         SchedulingPolicy files (default: the package's policies/)`,
  parse(values, { cwd }) {
    const dir = text(values, 'policies');
    return { config: { policies: dir === undefined ? join(packageRoot, 'policies') : resolve(cwd, dir) } };
  },
};

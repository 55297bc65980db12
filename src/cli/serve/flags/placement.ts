// --defer and --defer-max: when a Pod's placement waits behind the scheduling gate, and for how long at most.

import { parseDuration } from '../../../server/duration.ts';
import { text, type FlagGroup } from './flag-group.ts';

export const deferModes = ['never', 'overrun', 'always'] as const;
export type DeferMode = (typeof deferModes)[number];

export interface PlacementFlags {
  readonly defer: DeferMode;
  readonly deferMaxMs: number;
}

export const placementFlags: FlagGroup<PlacementFlags> = {
  options: {
    defer: { type: 'string', default: 'overrun' },
    'defer-max': { type: 'string', default: '60s' },
  },
  help: `  --defer never|overrun|always
                         overrun (default): a Pod whose placement cannot be
                         decided well now (the budget would be overrun, the
                         model is not ready, a source a policy reads is stale)
                         is admitted at once behind the scheduling gate
                         topogate.dev/placement, and placed by the controller;
                         always: every Pod a policy places that way; never:
                         such a Pod is admitted unchanged. With --topology kube
                         only (files have no controller to release it)
  --defer-max D          a Pod gated longer is released unchanged, with a
                         Warning Event, e.g. 30s, 2m (default 60s)`,
  parse(values) {
    const defer = text(values, 'defer');
    if (!deferModes.includes(defer as DeferMode))
      return { error: `--defer must be one of ${deferModes.join(', ')}, not "${defer}"` };
    const deferMax = text(values, 'defer-max') ?? '';
    const deferMaxMs = parseDuration(deferMax);
    if (deferMaxMs === undefined || deferMaxMs <= 0)
      return { error: `--defer-max must be a duration such as 30s or 2m, not "${deferMax}"` };
    return { config: { defer: defer as DeferMode, deferMaxMs } };
  },
};

// --ui-listen: the topology view's own address, off unless given.

import { text, type FlagGroup } from './flag-group.ts';

export interface ViewFlags {
  /** Undefined: no view. */
  readonly uiListen?: { readonly host: string; readonly port: number };
}

export const viewFlags: FlagGroup<ViewFlags> = {
  options: { 'ui-listen': { type: 'string' } },
  help: `  --ui-listen HOST:PORT  serve the read-only topology view (docs/view.md) on its
                         own port, plain HTTP: keep it on 127.0.0.1 and reach it
                         with kubectl port-forward (default: off)`,
  parse(values) {
    const given = text(values, 'ui-listen');
    if (given === undefined) return { config: {} };
    const found = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(given);
    const port = Number(found?.[3]);
    if (!found || !Number.isInteger(port) || port < 0 || port > 65535)
      return { error: `--ui-listen must be HOST:PORT, such as 127.0.0.1:8080, not "${given}"` };
    return { config: { uiListen: { host: (found[1] ?? found[2])!, port } } };
  },
};

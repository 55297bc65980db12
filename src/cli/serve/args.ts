// `serve`'s command line: the flag groups' options parsed together, each
// group turning its values into its part of the configuration.

import { parseArgs } from 'node:util';
import type { ServeConfig } from './config.ts';
import type { FlagGroup, FlagOption, FlagValues } from './flags/flag-group.ts';
import { auditFlags } from './flags/audit.ts';
import { controlPlaneFlags } from './flags/controlplane.ts';
import { loggingFlags } from './flags/logging.ts';
import { placementFlags } from './flags/placement.ts';
import { policyFlags } from './flags/policies.ts';
import { topologyFlags } from './flags/topology.ts';
import { viewFlags } from './flags/view.ts';
import { webhookFlags } from './flags/webhook.ts';

/** In --help order. A new group is one line here and its part in config.ts. */
const groups: readonly FlagGroup<Partial<ServeConfig>>[] = [
  policyFlags,
  topologyFlags,
  controlPlaneFlags,
  webhookFlags,
  placementFlags,
  auditFlags,
  viewFlags,
  loggingFlags,
];

export const usage = `Usage: topogate serve [flags]

Runs the mutating admission webhook over HTTPS: POST /mutate, GET /healthz,
/readyz and /metrics. With no flags it serves the embedded default: the
policies in policies/, the demo cluster in examples/cluster/ and certificates
in certs/ (made on first start, valid for localhost), on https://127.0.0.1:8443.
Default paths are those of the topogate package, not of the current directory;
paths given as flags are relative to the current directory.

Flags:
${groups.map((group) => group.help).join('\n')}

Stops on SIGTERM or SIGINT after in-flight requests finish; SIGHUP re-reads the policies.
`;

export type ParsedServeArgs =
  { readonly ok: true; readonly config: ServeConfig } | { readonly ok: false; readonly message: string };

export function parseServeArgs(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): ParsedServeArgs {
  const options: Record<string, FlagOption> = Object.assign({}, ...groups.map((group) => group.options));
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, tokens: true, options });
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const values: Record<string, FlagValues[string]> = { ...parsed.values };
  const takesPositionals = new Set(groups.flatMap((group) => group.takesPositionals ?? []));
  let lastOption: string | undefined;
  for (const token of parsed.tokens) {
    if (token.kind === 'option') lastOption = token.name;
    else if (token.kind !== 'positional') continue;
    else if (lastOption !== undefined && takesPositionals.has(lastOption))
      values[lastOption] = [...((values[lastOption] as string[] | undefined) ?? []), token.value];
    else return { ok: false, message: `unexpected argument "${token.value}"` };
  }

  const context = { cwd, env, inCluster: Boolean(env.KUBERNETES_SERVICE_HOST) };
  const config: Partial<ServeConfig> = {};
  for (const group of groups) {
    const result = group.parse(values, context);
    if ('error' in result) return { ok: false, message: result.error };
    Object.assign(config, result.config);
  }
  return { ok: true, config: config as ServeConfig };
}

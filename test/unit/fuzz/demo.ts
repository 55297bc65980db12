// The policies of policies/ compiled against the demo cluster of
// examples/cluster: what `npm start` serves, so the fuzzers attack the rule
// tables an install really runs.

import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { compile, type CompiledPolicySet } from '../../../src/policy/compiler.ts';
import { loadPolicies } from '../../../src/sources/policies/files.ts';
import type { DecisionOptions } from '../../../src/policy/types.ts';
import { buildStaticSnapshot } from '../../../src/topology/build.ts';
import type { TopologySnapshot } from '../../../src/topology/model.ts';
import { loadTopologyPaths } from '../../../src/sources/topology/files.ts';

const repo = new URL('../../../', import.meta.url);
const policiesDir = new URL('policies/', repo);

export const demoOptions: DecisionOptions = { now: Date.parse('2026-12-02T12:00:00Z'), maxSourceAgeMs: 10 * 60_000 };

export async function demoSnapshot(): Promise<TopologySnapshot> {
  return buildStaticSnapshot(await loadTopologyPaths([new URL('examples/cluster/', repo).pathname]));
}

export async function demoCompiled(): Promise<CompiledPolicySet> {
  const { policies, errors } = await loadPolicies([policiesDir.pathname]);
  if (errors.length > 0) throw new Error(`policies/ does not load: ${errors.map((error) => error.message).join('; ')}`);
  return compile(policies, await demoSnapshot());
}

/** The SchedulingPolicy documents of policies/, as plain objects. */
export function demoPolicyObjects(): Record<string, unknown>[] {
  return readdirSync(policiesDir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(new URL(file, policiesDir), 'utf8')).map(
        (document) => document.toJS() as Record<string, unknown>,
      ),
    );
}

// A synthetic cluster and policy set turned into what the decision core
// reads, through the same functions `serve` and `mutate` use.

import { stringify } from 'yaml';
import { parsePolicies } from '../src/policy/parse.ts';
import type { SchedulingPolicy } from '../src/policy/types.ts';
import { buildSnapshot } from '../src/topology/build.ts';
import type { TopologySnapshot } from '../src/topology/model.ts';
import { cluster } from './cluster.ts';
import { policies } from './workload.ts';

/** Endpoints in the decision benchmark's clusters: a few Services, enough for latency-to-service rules. */
export const DECISION_ENDPOINTS = 2_000;

/** The policy set as the YAML file a platform team would write. */
export function policyYaml(count: number): string {
  return policies(count)
    .map((policy) => stringify(policy))
    .join('---\n');
}

export function loadPolicySet(count: number): SchedulingPolicy[] {
  const { policies: loaded, errors } = parsePolicies(policyYaml(count), `bench-policies-${count}.yaml`);
  if (errors.length > 0) throw new Error(`the benchmark's policies do not load: ${JSON.stringify(errors.slice(0, 3))}`);
  return loaded;
}

export function loadSnapshot(nodes: number, now: number): TopologySnapshot {
  return buildSnapshot(cluster({ nodes, endpoints: DECISION_ENDPOINTS }, now), { now });
}

// Every rule key of a policy, with what the compiler, the engine, the
// deferral and the decision memo need to know of it. The type makes a rule
// key added to the schema a compile error here until its entry says how it
// compiles, which sources it reads and when they are fresh, and whether it
// reads the occupancy. The table's order is the order rules run in.

import type { SourceName, TopologySnapshot } from '../../topology/model.ts';
import type { PolicyRules } from '../types.ts';
import { compileBandwidth } from './bandwidth.ts';
import { compileColocate } from './colocate.ts';
import { compileGpu } from './gpu.ts';
import { compileLatency } from './latency.ts';
import { compileNodeLabels } from './nodeLabels.ts';
import { compileNuma } from './numa.ts';
import { compilePack } from './pack.ts';
import type { CompiledRule } from './rule.ts';
import { freshUntil as freshUntilOf, type SourceReading } from './sourceAge.ts';
import { compileSpread, spreadLabelKeys } from './spread.ts';
import { targetReadings } from './target.ts';

export type RuleKey = keyof PolicyRules;

export interface RuleModule<Rule> {
  /** Its compiled rules, in the order they run (nodeLabels makes two, spread one per entry, dra none). */
  compile(rule: Rule, snapshot: TopologySnapshot): readonly CompiledRule[];
  /**
   * Its outputs need the model (node sets, measured RTTs, NUMA fits). A spread constraint and a scheduler name are
   * written from the policy and the Pod's labels alone; they are also what the API server will not let change once
   * the Pod exists, so they are written at admission even when the rest waits for the model.
   */
  readonly needsModel: boolean;
  /** The sources it reads: one stale for longer than the maximum source age defers the Pod. */
  readonly sources: readonly SourceName[];
  /** The sources whose age its decisions judge against options.now: until one goes stale, decisions are kept. */
  readonly clockReads?: (snapshot: TopologySnapshot) => readonly SourceReading[];
  /** Its decisions read the bound Pods: they are memoised per occupancy version. */
  readonly readsOccupancy: boolean;
  /** false: it writes to other objects (dra: ResourceClaims and their templates), never to a Pod. */
  readonly writesPods: boolean;
  /** The Pod's label keys it reads: its rules are given the Pod's labels of those keys only (compiler.ts). */
  readonly podLabels: (rule: Rule) => readonly string[];
}

const POD_RULE = { needsModel: true, readsOccupancy: false, writesPods: true, podLabels: () => [] } as const;

type RuleTable = { readonly [Key in RuleKey]-?: RuleModule<NonNullable<PolicyRules[Key]>> };

export const RULES: RuleTable = {
  nodeLabels: { ...POD_RULE, compile: compileNodeLabels, sources: ['nodes'] },
  gpu: { ...POD_RULE, compile: (rule, snapshot) => [compileGpu(rule, snapshot)], sources: ['nodes', 'resourceSlices'] },
  latency: {
    ...POD_RULE,
    compile: (rule, snapshot) => [compileLatency(rule, snapshot)],
    sources: ['nodes', 'networkTopologies', 'etcd', 'endpointSlices'],
    clockReads: targetReadings,
  },
  bandwidth: {
    ...POD_RULE,
    compile: (rule, snapshot) => [compileBandwidth(rule, snapshot)],
    sources: ['nodes', 'networkTopologies', 'etcd', 'endpointSlices'],
    clockReads: targetReadings,
  },
  // pack after the zone rules: the domain it picks must lie among the nodes they allow.
  pack: {
    ...POD_RULE,
    compile: (rule, snapshot) => [compilePack(rule, snapshot)],
    sources: ['nodes', 'pods'],
    readsOccupancy: true,
  },
  colocate: {
    ...POD_RULE,
    compile: (rule, snapshot) => [compileColocate(rule, snapshot)],
    sources: ['nodes', 'pods'],
    readsOccupancy: true,
  },
  spread: {
    ...POD_RULE,
    compile: (rules, snapshot) => rules.map((rule, index) => compileSpread(rule, index, snapshot)),
    podLabels: (rules) => rules.flatMap(spreadLabelKeys),
    needsModel: false,
    sources: [],
  },
  // numa last: it picks among what the others allow.
  numa: { ...POD_RULE, compile: (rule) => [compileNuma(rule)], sources: ['nodes', 'nodeResourceTopologies'] },
  dra: { ...POD_RULE, compile: () => [], needsModel: false, sources: [], writesPods: false },
};

/** The rule keys in the order they run. */
export const RULE_KEYS = Object.keys(RULES) as readonly RuleKey[];

/** The policy's rule keys that are set, in the order they run. */
export function ruleKeys(rules: PolicyRules): RuleKey[] {
  return RULE_KEYS.filter((key) => rules[key] !== undefined);
}

/** The Pod's label keys the policy's rules read. */
export function rulePodLabels(rules: PolicyRules): string[] {
  // As compileRule: the entry for each key takes that key's rule.
  return ruleKeys(rules).flatMap((key) => (RULES[key] as RuleModule<unknown>).podLabels(rules[key]));
}

/** The rule's compiled rules; none when the policy does not set it. */
export function compileRule<Key extends RuleKey>(
  key: Key,
  rules: PolicyRules,
  snapshot: TopologySnapshot,
): readonly CompiledRule[] {
  const rule = rules[key];
  // The entry for this key takes this key's rule; TypeScript does not follow the correlation through the table.
  const module = RULES[key] as RuleModule<NonNullable<PolicyRules[Key]>>;
  return rule === undefined ? [] : module.compile(rule, snapshot);
}

/**
 * Until when (options.now at most this) no source any rule judges by the clock is failing or stale: till then no
 * decision on this snapshot depends on the clock. -Infinity when one is failing already.
 */
export function freshUntil(snapshot: TopologySnapshot, maxSourceAgeMs: number): number {
  const readings = RULE_KEYS.flatMap((key) => RULES[key].clockReads?.(snapshot) ?? []);
  return freshUntilOf(snapshot, readings, maxSourceAgeMs);
}

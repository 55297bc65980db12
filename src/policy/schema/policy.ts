// The SchedulingPolicy v1alpha1 schema (../shared/spec/policy.md): every
// field, its checks and its default. The loader checks documents with it and
// schema/schedulingpolicy.schema.json is generated from it.

import type { LabelSelector, LabelSelectorRequirement, NodeSelectorRequirement } from '../../kube/types.ts';
import type { Enforcement, PolicyMatch, PolicyRules } from '../types.ts';
import type { Issue, Path, Schema } from './checks.ts';
import { boolean, integer, list, named, number, object, oneOf, optional, record, required, string } from './checks.ts';
import {
  checkDnsLabel,
  checkDnsSubdomain,
  checkLabelKey,
  checkLabelValue,
  checkQualifiedName,
  jsonPatterns,
  labelValueGlob,
  namespaceGlob,
} from './names.ts';

export const API_VERSION = 'topogate.dev/v1alpha1';
export const KIND = 'SchedulingPolicy';

/** A checked and defaulted policy document, before it becomes a SchedulingPolicy. */
export interface PolicyDocument {
  readonly apiVersion: typeof API_VERSION;
  readonly kind: typeof KIND;
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly priority: number;
    readonly match?: PolicyMatch;
    readonly onUnsatisfiable: 'Warn' | 'Reject';
    readonly enforcement: Enforcement;
    readonly rollout: { readonly percent: number };
    readonly rules: PolicyRules;
  };
}

const labelKey = (description?: string): Schema<string> =>
  string({ description, valid: checkLabelKey, json: jsonPatterns.labelKey });
const labelValue = string({ valid: checkLabelValue, json: jsonPatterns.labelValue });
const mode = (fallback: string, description: string) =>
  optional(oneOf(['Required', 'Preferred'], description), fallback);
const weight = (description: string) => integer({ min: 1, max: 100, description });

type Requirement = NodeSelectorRequirement | LabelSelectorRequirement;

/** Operator and values agree, as the API server checks node selector and label selector requirements. */
function requirementValues(value: { operator: string; values?: string[] }, path: Path, issues: Issue[]): void {
  const values = value.values ?? [];
  const at = [...path, 'values'];
  switch (value.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        issues.push({ path: at, at: 'parent', message: `must list at least one value for operator ${value.operator}` });
      values.forEach((text, index) => {
        const problem = checkLabelValue(text);
        if (problem) issues.push({ path: [...at, index], at: 'value', message: problem });
      });
      return;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0)
        issues.push({ path: at, at: 'value', message: `must be empty for operator ${value.operator}` });
      return;
    default:
      if (values.length !== 1)
        issues.push({
          path: at,
          at: values.length ? 'value' : 'parent',
          message: `must hold exactly one integer for operator ${value.operator}`,
        });
      else if (!isInt64(values[0] ?? ''))
        issues.push({
          path: [...at, 0],
          at: 'value',
          message: `${JSON.stringify(values[0])} is not an integer (operator ${value.operator})`,
        });
  }
}

function isInt64(text: string): boolean {
  if (!/^[+-]?\d{1,19}$/.test(text)) return false;
  const parsed = BigInt(text);
  return parsed >= -(2n ** 63n) && parsed < 2n ** 63n;
}

function requirement<T extends Requirement>(name: string, operators: readonly string[]): Schema<T> {
  /** For these operators, `values` must be as `values` says (and present when `present`). */
  const when = (ops: readonly string[], values: Record<string, unknown>, present: boolean) => ({
    if: { properties: { operator: { enum: ops } }, required: ['operator'] },
    then: { ...(present ? { required: ['values'] } : {}), properties: { values } },
  });
  const conditions = [
    when(['In', 'NotIn'], { minItems: 1, items: { type: 'string', ...jsonPatterns.labelValue } }, true),
    when(['Exists', 'DoesNotExist'], { maxItems: 0 }, false),
    ...(operators.includes('Gt')
      ? [when(['Gt', 'Lt'], { minItems: 1, maxItems: 1, items: { pattern: '^[+-]?[0-9]+$' } }, true)]
      : []),
  ];
  return named(
    name,
    object<T>(
      {
        key: required(labelKey('The label key the requirement is about.')),
        operator: required(oneOf(operators)),
        values: optional(list(string())),
      },
      { refine: { check: requirementValues, json: { allOf: conditions } } },
    ),
  );
}

const nodeSelectorRequirement = requirement<NodeSelectorRequirement>('NodeSelectorRequirement', [
  'In',
  'NotIn',
  'Exists',
  'DoesNotExist',
  'Gt',
  'Lt',
]);

const labelSelector = named(
  'LabelSelector',
  object<LabelSelector>(
    {
      matchLabels: optional(record(labelKey(), labelValue)),
      matchExpressions: optional(
        list(
          requirement<LabelSelectorRequirement>('LabelSelectorRequirement', ['In', 'NotIn', 'Exists', 'DoesNotExist']),
        ),
      ),
    },
    { description: 'A standard Kubernetes LabelSelector: matchLabels and matchExpressions, ANDed.' },
  ),
);

const globs = (check: (text: string) => string | undefined, pattern: { pattern: string }, description: string) =>
  list(string({ valid: check, json: pattern }), { minItems: 1, description });

const match = object<PolicyMatch>(
  {
    namespaces: optional(
      globs(
        namespaceGlob,
        jsonPatterns.namespaceGlob,
        "Namespace names or globs (* and ?); the Pod's namespace must match one.",
      ),
    ),
    excludeNamespaces: optional(
      globs(namespaceGlob, jsonPatterns.namespaceGlob, 'Namespace names or globs (* and ?) that never match.'),
    ),
    namespaceSelector: optional(labelSelector),
    podSelector: optional(labelSelector),
    resources: optional(
      list(labelKey(), { minItems: 1, description: 'The Pod requests a non-zero amount of any of these resources.' }),
    ),
    qosClasses: optional(
      list(oneOf(['Guaranteed', 'Burstable', 'BestEffort']), {
        minItems: 1,
        description: 'QoS classes, computed as Kubernetes does.',
      }),
    ),
  },
  { description: 'Which Pods the policy applies to: every field given must hold. Absent: every Pod.' },
);

const nodeLabels = object(
  {
    required: optional(
      list(nodeSelectorRequirement, { description: 'ANDed into every required nodeSelectorTerm.' }),
      [],
    ),
    preferred: optional(
      list(
        object({
          weight: required(weight('1-100, as in preferredDuringSchedulingIgnoredDuringExecution.')),
          requirements: required(list(nodeSelectorRequirement, { minItems: 1 })),
        }),
      ),
      [],
    ),
  },
  {
    description: 'Static node placement, like the PodNodeSelector admission plugin.',
    refine: {
      check: (value: { required: unknown[]; preferred: unknown[] }, path, issues) => {
        if (value.required.length + value.preferred.length === 0)
          issues.push({ path, at: 'value', message: 'needs required or preferred requirements' });
      },
      json: {
        anyOf: ['required', 'preferred'].map((list) => ({ required: [list], properties: { [list]: { minItems: 1 } } })),
      },
    },
  },
);

const gpu = object(
  {
    products: optional(
      globs(
        labelValueGlob,
        jsonPatterns.labelValueGlob,
        'Globs over the nvidia.com/gpu.product values in the topology model.',
      ),
      ['*'],
    ),
    minMemoryMiB: optional(
      integer({ min: 0, exclusiveMin: true, description: 'nvidia.com/gpu.memory (MiB) must be at least this.' }),
    ),
    resource: optional(
      labelKey("The GPU resource: the node's <resource>.count label must cover the Pod's request of it."),
      'nvidia.com/gpu',
    ),
    mode: mode('Required', 'Required: node affinity requirements; Preferred: a weighted preference.'),
    weight: optional(weight('The preference weight when mode is Preferred.'), 100),
  },
  { description: 'Place the Pod on nodes with matching GPUs (GPU Feature Discovery labels).' },
);

const numa = object(
  {
    policy: optional(oneOf(['SingleNUMANode']), 'SingleNUMANode'),
    mode: mode('Preferred', 'Required: only candidate nodes; Preferred: candidates preferred.'),
    maxCandidates: optional(integer({ min: 1, description: 'How many best-fitting nodes enter the affinity.' }), 16),
    schedulerName: optional(
      string({
        valid: checkDnsSubdomain,
        json: jsonPatterns.dnsSubdomain,
        description: 'Set as spec.schedulerName when the Pod has none or default-scheduler.',
      }),
    ),
  },
  { description: 'Place the Pod on nodes with one NUMA zone that fits its whole request (NodeResourceTopology).' },
);

function checkService(text: string): string | undefined {
  const parts = text.split('/');
  if (parts.length !== 2) return `${JSON.stringify(text)} must be NAMESPACE/NAME`;
  const problems = parts.map(checkDnsLabel).filter((problem) => problem !== undefined);
  return problems.length ? `${JSON.stringify(text)} must be NAMESPACE/NAME: ${problems.join('; ')}` : undefined;
}

const nonEmptyLabelValue = (text: string) => (text === '' ? 'must not be empty' : checkLabelValue(text));

/** Where a latency or bandwidth rule measures to: exactly one of zone, service or etcdLeader. */
const target = object(
  {
    zone: optional(
      string({
        valid: nonEmptyLabelValue,
        json: { ...jsonPatterns.labelValue, minLength: 1 },
        description: 'A zone (the NetworkTopology domain label value).',
      }),
    ),
    service: optional(
      string({
        valid: checkService,
        json: { pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
        description: 'NAMESPACE/NAME of a Service: the zones of its ready endpoints.',
      }),
    ),
    etcdLeader: optional(oneOf([true], 'The zone of the current etcd leader.')),
  },
  {
    description: 'Exactly one of zone, service or etcdLeader: true.',
    refine: {
      check: (value: object, path, issues) => {
        const given = Object.keys(value);
        if (given.length !== 1) {
          const found = given.length === 0 ? 'none is given' : `${given.join(' and ')} are given`;
          issues.push({
            path,
            at: 'value',
            message: `needs exactly one of zone, service or etcdLeader; ${found}`,
          });
        }
      },
      json: { minProperties: 1, maxProperties: 1 },
    },
  },
);

const latency = object(
  {
    to: required(target),
    maxRttMs: required(
      number({ min: 0, description: 'Zones whose measured RTT to the target is at most this many milliseconds.' }),
    ),
    mode: mode('Preferred', 'Required: only those zones; Preferred: closer zones weigh more.'),
    percentile: optional(
      oneOf(['p50', 'p99'], 'p50: the median round trip (status rttMs); p99: its tail (status rttP99Ms).'),
      'p50',
    ),
    avoidDegradedNodes: optional(boolean('Leave out the nodes NetworkTopology status.degradedNodes names.'), false),
  },
  { description: 'Keep the Pod within a round-trip time of a zone, a Service or the etcd leader.' },
);

const bandwidth = object(
  {
    to: required(target),
    minGbps: required(
      number({ min: 0, description: 'Zones whose link to the target carries at least this many Gbps.' }),
    ),
    mode: mode('Preferred', 'Required: only those zones; Preferred: zones weighted by bandwidth.'),
  },
  {
    description:
      "Keep a data-heavy Pod where the bandwidth to its data is: the target's own zones and those with at least minGbps to it.",
  },
);

interface PackShape {
  readonly levels: readonly string[];
  readonly level: string;
}

const pack = object<PackShape>(
  {
    levels: required(
      list(labelKey(), { minItems: 1, description: 'Node label keys of the hierarchy, outermost first.' }),
    ),
    level: required(labelKey('One of levels: the workload is kept inside one domain of it.')),
    mode: mode('Preferred', 'Required: only the chosen domain; Preferred: the chosen domain preferred.'),
  },
  {
    description: 'Keep all Pods of one workload inside one domain (a rack, a block) whose free capacity fits them.',
    refine: {
      check: (value, path, issues) => {
        if (!value.levels.includes(value.level))
          issues.push({
            path: [...path, 'level'],
            at: 'value',
            message: `must be one of levels [${value.levels.join(', ')}]`,
          });
        const seen = new Set<string>();
        value.levels.forEach((level, index) => {
          if (seen.has(level))
            issues.push({ path: [...path, 'levels', index], at: 'value', message: `repeats ${level}` });
          seen.add(level);
        });
      },
    },
  },
);

const dra = object(
  {
    alignBy: required(
      string({
        valid: checkQualifiedName,
        json: jsonPatterns.qualifiedName,
        description:
          'The device attribute every request of a claim must share (matchAttribute), e.g. resource.kubernetes.io/pcieRoot or numaNode.',
      }),
    ),
  },
  {
    description:
      'Align the devices of a ResourceClaim or ResourceClaimTemplate: one constraint over all its requests (not applied to Pods).',
  },
);

interface SpreadShape {
  readonly topologyKey: string;
  readonly whenUnsatisfiable: string;
  readonly minDomains?: number;
}

const spreadRule = object<SpreadShape>(
  {
    topologyKey: required(labelKey('The node label whose values are the spread domains.')),
    maxSkew: optional(integer({ min: 1 }), 1),
    whenUnsatisfiable: optional(oneOf(['DoNotSchedule', 'ScheduleAnyway']), 'ScheduleAnyway'),
    minDomains: optional(integer({ min: 1, description: 'Only with whenUnsatisfiable: DoNotSchedule.' })),
    selectorLabelKeys: optional(
      list(labelKey(), {
        minItems: 1,
        description:
          'Pod label keys whose values form the labelSelector. Default: app.kubernetes.io/name, app.kubernetes.io/instance, app.',
      }),
    ),
    matchLabelKeys: optional(list(labelKey(), { minItems: 1, description: 'Passed through to the constraint.' })),
  },
  {
    refine: {
      check: (value, path, issues) => {
        if (value.minDomains !== undefined && value.whenUnsatisfiable !== 'DoNotSchedule') {
          issues.push({
            path: [...path, 'minDomains'],
            at: 'value',
            message: 'is only allowed with whenUnsatisfiable: DoNotSchedule',
          });
        }
      },
      json: {
        if: { required: ['minDomains'] },
        then: { required: ['whenUnsatisfiable'], properties: { whenUnsatisfiable: { const: 'DoNotSchedule' } } },
      },
    },
  },
);

const spread = list(spreadRule, {
  minItems: 1,
  description: 'topologySpreadConstraints to add, one per entry.',
  refine: {
    check: (rules, path, issues) => {
      const seen = new Map<string, number>();
      rules.forEach((rule, index) => {
        const key = `${rule.topologyKey}\n${rule.whenUnsatisfiable}`;
        const first = seen.get(key);
        if (first === undefined) seen.set(key, index);
        else
          issues.push({
            path: [...path, index],
            at: 'value',
            message: `repeats the topologyKey and whenUnsatisfiable of entry ${first} (the API server rejects such duplicates)`,
          });
      });
    },
  },
});

const rules = object<PolicyRules>(
  {
    nodeLabels: optional(nodeLabels),
    gpu: optional(gpu),
    numa: optional(numa),
    latency: optional(latency),
    bandwidth: optional(bandwidth),
    pack: optional(pack),
    spread: optional(spread),
    dra: optional(dra),
  },
  {
    description: 'What the policy adds to matching Pods.',
    refine: {
      check: (value, path, issues) => {
        if (Object.keys(value).length === 0)
          issues.push({
            path,
            at: 'value',
            message: 'needs at least one rule: nodeLabels, gpu, numa, latency, bandwidth, pack, spread or dra',
          });
      },
      json: { minProperties: 1 },
    },
  },
);

export const policyDocument: Schema<PolicyDocument> = object<PolicyDocument>(
  {
    apiVersion: required(oneOf([API_VERSION])),
    kind: required(oneOf([KIND])),
    metadata: required(
      object(
        {
          name: required(
            string({
              valid: checkDnsSubdomain,
              json: jsonPatterns.dnsSubdomain,
              description: 'Unique among the loaded policies.',
            }),
          ),
        },
        { open: true },
      ),
    ),
    spec: required(
      object({
        priority: optional(
          integer({ min: -2147483648, max: 2147483647, description: 'Higher is applied first; ties by name.' }),
          0,
        ),
        match: optional(match),
        onUnsatisfiable: optional(
          oneOf(['Warn', 'Reject'], 'Warn: drop the required outputs with a warning; Reject: deny the Pod.'),
          'Warn',
        ),
        enforcement: optional(
          oneOf(
            ['Enforce', 'Audit'],
            'Audit: decided as under Enforce, but only said (an "audit: " warning, audit annotations, metrics); the Pod is left as it is and never denied.',
          ),
          'Enforce',
        ),
        rollout: optional(
          object<{ percent: number }>(
            {
              percent: optional(
                integer({
                  min: 0,
                  max: 100,
                  description:
                    'The share of workloads the policy applies to, by a stable hash of the workload (namespace and controller owner); raising it only adds workloads.',
                }),
                100,
              ),
            },
            {
              description: 'Applies the policy to a share of workloads; a workload left out is treated as not matched.',
            },
          ),
          { percent: 100 },
        ),
        rules: required(rules),
      }),
    ),
    status: optional(object({}, { open: true, description: 'Ignored: policies have no status.' })),
  },
  { description: 'topogate SchedulingPolicy v1alpha1: topology-aware placement injected into Pods at admission.' },
);

// The SchedulingPolicy v1alpha1 spec (docs/policy.md) in TypeBox: every field, its checks and its
// default, once. From it come the TypeScript types (src/policy/types.ts, by Static), the loader's checks
// (src/policy/schema/check.ts), schema/schedulingpolicy.schema.json and the CRD's openAPIV3Schema
// (schedulingpolicy.ts holds the rest of the kind). A field with a default is not Optional: Static is the
// defaulted shape the core reads, and the published schemas do not require what has a default.
// x-kubernetes-validations state a refinement in CEL for the API server; allOf, anyOf and if state it
// for JSON Schema editors; maxItems and maxLength bound the CEL cost and hold in the loader too.

import Type from 'typebox';
import { ZONE_LABEL } from '../../kube/labels.ts';
import { exact, refine } from '../schema/refine.ts';
import type { Issue, Path } from '../schema/issue.ts';
import {
  checkDnsSubdomain,
  checkLabelKey,
  checkLabelValue,
  checkQualifiedName,
  checkService,
  jsonPatterns,
  labelValueGlob,
  namespaceGlob,
  nonEmptyLabelValue,
} from '../schema/names.ts';

const cel = (...rules: [rule: string, message: string][]) => ({
  'x-kubernetes-validations': rules.map(([rule, message]) => ({ rule, message })),
});

const labelKey = (description?: string) =>
  exact(Type.String({ ...(description && { description }), ...jsonPatterns.labelKey }), checkLabelKey);
const labelValue = exact(Type.String(jsonPatterns.labelValue), checkLabelValue);
const labelKeys = (description: string, maxItems = 16) =>
  Type.Array(labelKey(), { description, minItems: 1, maxItems });
const mode = <const Fallback extends 'Required' | 'Preferred'>(fallback: Fallback, description: string) =>
  Type.Enum(['Required', 'Preferred'], { description, default: fallback });
const weight = (description: string) => Type.Integer({ description, minimum: 1, maximum: 100 });

type RequirementShape = { readonly operator: string; readonly values?: readonly string[] };

/** Operator and values agree, as the API server checks node selector and label selector requirements. */
function requirementValues(value: RequirementShape, path: Path, issues: Issue[]): void {
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

/** For these operators, `values` must be as `values` says (and present when `present`): JSON Schema's form. */
const when = (operators: readonly string[], values: Record<string, unknown>, present: boolean) => ({
  if: { properties: { operator: { enum: operators } }, required: ['operator'] },
  then: { ...(present ? { required: ['values'] } : {}), properties: { values } },
});
const labelValueConditions = [
  when(['In', 'NotIn'], { minItems: 1, items: { type: 'string', ...jsonPatterns.labelValue } }, true),
  when(['Exists', 'DoesNotExist'], { maxItems: 0 }, false),
];

export const labelSelectorRequirement = refine(
  Type.Object(
    {
      key: labelKey('The label key the requirement is about.'),
      operator: Type.Enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
      values: Type.Optional(Type.Array(labelValue, { description: 'Label values (In, NotIn).', maxItems: 256 })),
    },
    {
      additionalProperties: false,
      allOf: labelValueConditions,
      ...cel([
        "self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0) : (!has(self.values) || size(self.values) == 0)",
        'operators In and NotIn need at least one value; Exists and DoesNotExist take none',
      ]),
    },
  ),
  requirementValues,
);

const integerText = '[+-]?[0-9]+';

export const nodeSelectorRequirement = refine(
  Type.Object(
    {
      key: labelKey('The node label key the requirement is about.'),
      operator: Type.Enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']),
      values: Type.Optional(
        Type.Array(
          // Label values or one integer, stated outright: a CEL rule per value would exceed the API server's cost budget.
          Type.String({ maxLength: 63, pattern: `^(${jsonPatterns.labelValue.pattern.slice(1, -1)}|${integerText})$` }),
          { description: 'Label values (In, NotIn), or one integer (Gt, Lt).', maxItems: 256 },
        ),
      ),
    },
    {
      additionalProperties: false,
      allOf: [
        ...labelValueConditions,
        when(['Gt', 'Lt'], { minItems: 1, maxItems: 1, items: { pattern: `^${integerText}$` } }, true),
      ],
      ...cel(
        [
          "!(self.operator in ['In', 'NotIn']) || (has(self.values) && size(self.values) > 0)",
          'operators In and NotIn need at least one value',
        ],
        [
          "!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0",
          'operators Exists and DoesNotExist take no values',
        ],
        [
          `!(self.operator in ['Gt', 'Lt']) || (has(self.values) && size(self.values) == 1 && self.values[0].matches('^${integerText}$'))`,
          'operators Gt and Lt need exactly one integer value',
        ],
      ),
    },
  ),
  requirementValues,
);

const matchLabels = Type.Unsafe<Record<string, string>>({
  type: 'object',
  description: 'Label key → value; each must equal the label.',
  maxProperties: 64,
  propertyNames: labelKey(),
  additionalProperties: labelValue,
  ...cel([
    // A CEL string literal escapes its backslashes.
    `self.all(key, key.matches('${jsonPatterns.labelKey.pattern.replaceAll('\\', '\\\\')}'))`,
    "matchLabels keys must be label keys: an optional DNS subdomain prefix and '/', then a name of at most 63 alphanumerics, '-', '_' or '.'",
  ]),
});

const labelSelector = (description: string) =>
  Type.Object(
    {
      matchLabels: Type.Optional(matchLabels),
      matchExpressions: Type.Optional(Type.Array(labelSelectorRequirement, { maxItems: 64 })),
    },
    {
      description: `${description} A standard Kubernetes LabelSelector: matchLabels and matchExpressions, ANDed.`,
      additionalProperties: false,
      'x-kubernetes-map-type': 'atomic',
    },
  );

const namespaceGlobs = (description: string) =>
  Type.Array(exact(Type.String({ maxLength: 63, ...jsonPatterns.namespaceGlob }), namespaceGlob), {
    description,
    minItems: 1,
    maxItems: 256,
  });

export const match = Type.Object(
  {
    namespaces: Type.Optional(
      namespaceGlobs("Namespace names or globs (* and ?); the Pod's namespace must match one."),
    ),
    excludeNamespaces: Type.Optional(namespaceGlobs('Namespace names or globs (* and ?) that never match.')),
    namespaceSelector: Type.Optional(labelSelector("Over the labels of the Pod's Namespace.")),
    podSelector: Type.Optional(labelSelector("Over the Pod's labels.")),
    resources: Type.Optional(
      labelKeys('The Pod requests a non-zero amount of any of these resources (init containers too).', 64),
    ),
    qosClasses: Type.Optional(
      Type.Array(Type.Enum(['Guaranteed', 'Burstable', 'BestEffort']), {
        description: "The Pod's QoS class, computed as Kubernetes does, is one of these.",
        minItems: 1,
        maxItems: 3,
      }),
    ),
  },
  {
    description: 'Which Pods the policy applies to: every field given must hold. Absent: every Pod.',
    additionalProperties: false,
  },
);

export const nodeLabels = refine(
  Type.Object(
    {
      required: Type.Array(nodeSelectorRequirement, {
        description: 'ANDed into every required nodeSelectorTerm of the Pod.',
        maxItems: 64,
        default: [],
      }),
      preferred: Type.Array(
        Type.Object(
          {
            weight: weight('1-100, as in preferredDuringSchedulingIgnoredDuringExecution.'),
            requirements: Type.Array(nodeSelectorRequirement, { minItems: 1, maxItems: 64 }),
          },
          { additionalProperties: false },
        ),
        { description: "Appended to the Pod's preferred node affinity.", maxItems: 64, default: [] },
      ),
    },
    {
      description: 'Static node placement, like the PodNodeSelector admission plugin.',
      additionalProperties: false,
      anyOf: ['required', 'preferred'].map((list) => ({ required: [list], properties: { [list]: { minItems: 1 } } })),
      ...cel([
        '(has(self.required) ? size(self.required) : 0) + (has(self.preferred) ? size(self.preferred) : 0) > 0',
        'nodeLabels needs required or preferred requirements',
      ]),
    },
  ),
  (value, path, issues) => {
    if (value.required.length + value.preferred.length === 0)
      issues.push({ path, at: 'value', message: 'needs required or preferred requirements' });
  },
);

export const gpu = Type.Object(
  {
    products: Type.Array(exact(Type.String({ maxLength: 63, ...jsonPatterns.labelValueGlob }), labelValueGlob), {
      description: 'Globs (* and ?) over the nvidia.com/gpu.product values in the topology model.',
      minItems: 1,
      maxItems: 64,
      default: ['*'],
    }),
    minMemoryMiB: Type.Optional(
      Type.Integer({ description: "The node's nvidia.com/gpu.memory (MiB) must be at least this.", minimum: 1 }),
    ),
    resource: {
      ...labelKey("The GPU resource: the node's <resource>.count label must cover the Pod's request of it."),
      default: 'nvidia.com/gpu',
    },
    mode: mode('Required', 'Required: node affinity requirements; Preferred: a weighted preference.'),
    weight: { ...weight('The preference weight when mode is Preferred.'), default: 100 },
  },
  {
    description: 'Place the Pod on nodes with matching GPUs (GPU Feature Discovery labels).',
    additionalProperties: false,
  },
);

export const numa = Type.Object(
  {
    policy: Type.Enum(['SingleNUMANode'], { default: 'SingleNUMANode' }),
    mode: mode('Preferred', 'Required: only candidate nodes; Preferred: candidates preferred.'),
    maxCandidates: Type.Integer({
      description: 'How many of the best-fitting nodes enter the affinity.',
      minimum: 1,
      default: 16,
    }),
    schedulerName: Type.Optional(
      exact(
        Type.String({
          description: 'Set as spec.schedulerName when the Pod has none or default-scheduler.',
          ...jsonPatterns.dnsSubdomain,
        }),
        checkDnsSubdomain,
      ),
    ),
  },
  {
    description: 'Place the Pod on nodes with one NUMA zone that fits its whole request (NodeResourceTopology).',
    additionalProperties: false,
  },
);

/** Where a latency or bandwidth rule measures to: exactly one of zone, service or etcdLeader. */
const targetFields = Type.Object(
  {
    zone: Type.Optional(
      exact(
        Type.String({
          description: 'A zone (the NetworkTopology domain label value).',
          minLength: 1,
          ...jsonPatterns.labelValue,
        }),
        nonEmptyLabelValue,
      ),
    ),
    service: Type.Optional(
      exact(
        Type.String({
          description: 'NAMESPACE/NAME of a Service: the zones of its ready endpoints.',
          ...jsonPatterns.service,
        }),
        checkService,
      ),
    ),
    etcdLeader: Type.Optional(Type.Literal(true, { description: 'The zone of the node running the etcd leader.' })),
  },
  {
    description: 'Exactly one of zone, service or etcdLeader: true.',
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    ...cel([
      '[has(self.zone), has(self.service), has(self.etcdLeader)].exists_one(given, given)',
      'to takes exactly one of zone, service, etcdLeader',
    ]),
  },
);

/** Three optional fields and a check that exactly one is given: to TypeScript, one of three shapes. */
type ExactlyOne<T> = { [Key in keyof T]-?: { readonly [Given in Key]-?: Exclude<T[Given], undefined> } }[keyof T];

const target = Type.Unsafe<ExactlyOne<Type.Static<typeof targetFields>>>(
  refine(targetFields, (value, path, issues) => {
    const given = Object.keys(value);
    if (given.length === 1) return;
    const found = given.length === 0 ? 'none is given' : `${given.join(' and ')} are given`;
    issues.push({ path, at: 'value', message: `needs exactly one of zone, service or etcdLeader; ${found}` });
  }),
);

export const latency = Type.Object(
  {
    to: target,
    maxRttMs: Type.Number({
      description: 'Zones whose measured RTT to the target is at most this many milliseconds.',
      minimum: 0,
    }),
    mode: mode('Preferred', 'Required: only those zones; Preferred: closer zones weigh more.'),
    percentile: Type.Optional(
      Type.Enum(['p50', 'p99'], {
        description: 'p50: the median round trip (status rttMs); p99: its tail (status rttP99Ms).',
        default: 'p50',
      }),
    ),
    avoidDegradedNodes: Type.Optional(
      Type.Boolean({ description: 'Leave out the nodes NetworkTopology status.degradedNodes names.', default: false }),
    ),
  },
  {
    description: 'Keep the Pod within a round-trip time of a zone, a Service or the etcd leader.',
    additionalProperties: false,
  },
);

export const bandwidth = Type.Object(
  {
    to: target,
    minGbps: Type.Number({
      description: 'Zones whose link to the target carries at least this many Gbps.',
      minimum: 0,
    }),
    mode: mode('Preferred', 'Required: only those zones; Preferred: zones weighted by bandwidth.'),
  },
  {
    description:
      "Keep a data-heavy Pod where the bandwidth to its data is: the target's own zones and those with at least minGbps to it.",
    additionalProperties: false,
  },
);

export const pack = refine(
  Type.Object(
    {
      levels: labelKeys('Node label keys of the hierarchy, outermost first.'),
      level: labelKey('One of levels: the workload is kept inside one domain of it.'),
      mode: mode('Preferred', 'Required: only the chosen domain; Preferred: the chosen domain preferred.'),
      fit: Type.Optional(
        Type.Enum(['Spread', 'BestFit'], {
          description:
            'Among the domains with room for the whole workload: Spread, the first for the workload by rendezvous hashing (workloads spread over them); BestFit, the one with the least room left (whole domains kept free for large workloads).',
          default: 'Spread',
        }),
      ),
    },
    {
      description: 'Keep all Pods of one workload inside one domain (a rack, a block) whose free capacity fits them.',
      additionalProperties: false,
      ...cel(
        ['self.levels.exists(l, l == self.level)', 'pack.level must be one of pack.levels'],
        ['self.levels.all(l, self.levels.exists_one(m, m == l))', 'pack.levels must not repeat a key'],
      ),
    },
  ),
  (value, path, issues) => {
    if (!value.levels.includes(value.level))
      issues.push({
        path: [...path, 'level'],
        at: 'value',
        message: `must be one of levels [${value.levels.join(', ')}]`,
      });
    const seen = new Set<string>();
    value.levels.forEach((level, index) => {
      if (seen.has(level)) issues.push({ path: [...path, 'levels', index], at: 'value', message: `repeats ${level}` });
      seen.add(level);
    });
  },
);

export const colocate = refine(
  Type.Object(
    {
      callers: Type.Array(
        exact(
          Type.String({
            description:
              "A workload in the Pod's namespace whose Pods call this one: a Deployment or StatefulSet name.",
            ...jsonPatterns.dnsSubdomain,
          }),
          checkDnsSubdomain,
        ),
        { description: 'The callers, by workload name.', minItems: 1, maxItems: 16 },
      ),
      topologyKey: exact(
        Type.String({
          description: 'The node label whose values are the zones to complete.',
          default: ZONE_LABEL,
          ...jsonPatterns.labelKey,
        }),
        checkLabelKey,
      ),
      within: Type.Optional(
        labelKeys(
          "Finer node labels inside a zone (a block, a rack), outermost first: the callers' domains preferred.",
          4,
        ),
      ),
      mode: mode(
        'Preferred',
        "Required: only the callers' zones lacking a replica (else all the callers' zones); Preferred: those weigh most.",
      ),
      minDomains: Type.Optional(
        Type.Integer({
          description:
            "Keep the replicas in at least this many zones: while they run in fewer and every callers' zone holds one, the other zones count as lacking one (HA while the callers are, for the moment, in fewer zones).",
          minimum: 1,
          maximum: 16,
        }),
      ),
      avoidDegradedNodes: Type.Optional(
        Type.Boolean({
          description:
            'Leave out the nodes NetworkTopology status.degradedNodes names (a node whose measured RTT belies its zone label).',
          default: false,
        }),
      ),
    },
    {
      description:
        "Zone-complete co-location: every zone that runs a caller also runs a replica of this workload, so that a Service with trafficDistribution PreferSameZone keeps each call in its caller's zone.",
      additionalProperties: false,
      ...cel(
        ['self.callers.all(c, self.callers.exists_one(d, d == c))', 'colocate.callers must not repeat a name'],
        [
          '!has(self.within) || !has(self.topologyKey) || self.within.all(k, k != self.topologyKey)',
          'colocate.within must not repeat the topologyKey',
        ],
      ),
    },
  ),
  (value, path, issues) => {
    const seen = new Set<string>();
    value.callers.forEach((caller, index) => {
      if (seen.has(caller))
        issues.push({ path: [...path, 'callers', index], at: 'value', message: `repeats ${caller}` });
      seen.add(caller);
    });
    (value.within ?? []).forEach((key, index) => {
      if (key === value.topologyKey)
        issues.push({ path: [...path, 'within', index], at: 'value', message: 'repeats the topologyKey' });
    });
  },
);

export const dra = Type.Object(
  {
    alignBy: exact(
      Type.String({
        description:
          'The device attribute every request of a claim must share (matchAttribute), e.g. resource.kubernetes.io/pcieRoot or numaNode.',
        ...jsonPatterns.qualifiedName,
      }),
      checkQualifiedName,
    ),
  },
  {
    description:
      'Align the devices of a ResourceClaim or ResourceClaimTemplate: one constraint over all its requests (not applied to Pods).',
    additionalProperties: false,
  },
);

export const spreadRule = refine(
  Type.Object(
    {
      topologyKey: labelKey('The node label whose values are the spread domains.'),
      maxSkew: Type.Integer({ minimum: 1, default: 1 }),
      whenUnsatisfiable: Type.Enum(['DoNotSchedule', 'ScheduleAnyway'], { default: 'ScheduleAnyway' }),
      minDomains: Type.Optional(
        Type.Integer({ description: 'Only with whenUnsatisfiable: DoNotSchedule.', minimum: 1 }),
      ),
      selectorLabelKeys: Type.Optional(
        labelKeys(
          "Pod label keys whose values (the Pod's own) form the labelSelector. Default: app.kubernetes.io/name, app.kubernetes.io/instance, app.",
        ),
      ),
      matchLabelKeys: Type.Optional(labelKeys('Passed through to the constraint.')),
      avoidDegradedNodes: Type.Optional(
        Type.Boolean({
          description:
            'Leave out the nodes NetworkTopology status.degradedNodes names: the constraint counts domains by label, and a node whose measured RTT belies its zone label would count in the wrong one. Required node affinity with DoNotSchedule, a preference with ScheduleAnyway.',
        }),
      ),
    },
    {
      additionalProperties: false,
      if: { required: ['minDomains'] },
      then: { required: ['whenUnsatisfiable'], properties: { whenUnsatisfiable: { const: 'DoNotSchedule' } } },
      ...cel([
        "!has(self.minDomains) || self.whenUnsatisfiable == 'DoNotSchedule'",
        'minDomains is only allowed with whenUnsatisfiable: DoNotSchedule',
      ]),
    },
  ),
  (value, path, issues) => {
    if (value.minDomains !== undefined && value.whenUnsatisfiable !== 'DoNotSchedule')
      issues.push({
        path: [...path, 'minDomains'],
        at: 'value',
        message: 'is only allowed with whenUnsatisfiable: DoNotSchedule',
      });
  },
);

const spread = refine(
  Type.Array(spreadRule, {
    description:
      'topologySpreadConstraints to add, one per entry; no two with the same topologyKey and whenUnsatisfiable.',
    minItems: 1,
    maxItems: 16,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['topologyKey', 'whenUnsatisfiable'],
  }),
  (rules, path, issues) => {
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
);

export const rules = refine(
  Type.Object(
    {
      nodeLabels: Type.Optional(nodeLabels),
      gpu: Type.Optional(gpu),
      numa: Type.Optional(numa),
      latency: Type.Optional(latency),
      bandwidth: Type.Optional(bandwidth),
      pack: Type.Optional(pack),
      colocate: Type.Optional(colocate),
      spread: Type.Optional(spread),
      dra: Type.Optional(dra),
    },
    { description: 'What the policy adds to matching Pods.', additionalProperties: false, minProperties: 1 },
  ),
  (value, path, issues) => {
    if (Object.keys(value).length === 0)
      issues.push({
        path,
        at: 'value',
        message: 'needs at least one rule: nodeLabels, gpu, numa, latency, bandwidth, pack, colocate, spread or dra',
      });
  },
);

export const policySpec = Type.Object(
  {
    priority: Type.Integer({
      description: 'Higher is applied first; ties are broken by name.',
      minimum: -2147483648,
      maximum: 2147483647,
      default: 0,
    }),
    match: Type.Optional(match),
    onUnsatisfiable: Type.Enum(['Warn', 'Reject'], {
      description: 'Warn: drop the required outputs with a warning; Reject: deny the Pod.',
      default: 'Warn',
    }),
    enforcement: Type.Enum(['Enforce', 'Audit'], {
      description:
        'Audit: decided as under Enforce, but only said (an "audit: " warning, audit annotations, metrics); the Pod is left as it is and never denied.',
      default: 'Enforce',
    }),
    rollout: Type.Object(
      {
        percent: Type.Integer({
          description:
            'The share of workloads the policy applies to, by a stable hash of the workload (namespace and controller owner); raising it only adds workloads.',
          minimum: 0,
          maximum: 100,
          default: 100,
        }),
      },
      {
        description: 'Applies the policy to a share of workloads; a workload left out is treated as not matched.',
        additionalProperties: false,
        default: { percent: 100 },
      },
    ),
    rules,
  },
  { additionalProperties: false },
);

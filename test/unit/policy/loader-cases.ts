// The invalid policies both the loader and the published JSON Schema must
// reject, with the loader's exact messages.

export interface InvalidCase {
  readonly name: string;
  readonly text: string;
  readonly errors: readonly string[];
  /** Set where JSON Schema cannot say the rule (YAML syntax, duplicates across list items). */
  readonly loaderOnly?: true;
}

/** A policy document whose spec lines start at line 5. */
export const policy = (spec: string, name = 'p') =>
  `apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: ${name}}\nspec:\n${spec.replace(/^/gm, '  ')}\n`;

export const invalid: InvalidCase[] = [
  {
    name: 'wrong apiVersion',
    text: 'apiVersion: topogate.dev/v1\nkind: SchedulingPolicy\nmetadata: {name: p}\nspec: {rules: {spread: [{topologyKey: zone}]}}\n',
    errors: ['p.yaml:1:13: apiVersion: must be topogate.dev/v1alpha1; got "topogate.dev/v1"'],
  },
  {
    name: 'another kind in a policy file',
    text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {}\n',
    errors: [
      'p.yaml:2:7: kind: ConfigMap is not a SchedulingPolicy: policy files hold only topogate.dev/v1alpha1 SchedulingPolicy documents',
    ],
  },
  {
    name: 'name is not DNS-1123',
    text: policy('rules: {spread: [{topologyKey: zone}]}', 'GPU_Training'),
    errors: [
      `p.yaml:3:18: metadata.name: "GPU_Training" is not a valid DNS-1123 name (at most 253 characters: lowercase alphanumerics, '-' or '.', starting and ending with an alphanumeric)`,
    ],
  },
  {
    name: 'unknown field, with a suggestion',
    text: policy('rules:\n  gpuu: {}'),
    errors: ['p.yaml:6:5: spec.rules.gpuu: unknown field (did you mean "gpu"?)'],
  },
  {
    name: 'unknown field, no likely typo',
    text: policy('color: blue\nrules: {spread: [{topologyKey: zone}]}'),
    errors: ['p.yaml:5:3: spec.color: unknown field'],
  },
  {
    name: 'wrong type',
    text: policy('priority: "100"\nrules: {spread: [{topologyKey: zone}]}'),
    errors: ['p.yaml:5:13: spec.priority: expected an integer, got string'],
  },
  {
    name: 'unquoted YAML scalars where strings belong',
    text: policy('rules:\n  nodeLabels: {required: [{key: gpu, operator: In, values: [true, 3]}]}'),
    errors: [
      'p.yaml:6:63: spec.rules.nodeLabels.required[0].values[0]: expected a string, got boolean (quote it: "true")',
      'p.yaml:6:69: spec.rules.nodeLabels.required[0].values[1]: expected a string, got number (quote it: "3")',
    ],
  },
  {
    name: 'rules missing',
    text: policy('priority: 1'),
    errors: ['p.yaml:5:3: spec.rules: required field is missing'],
  },
  {
    name: 'no rule at all',
    text: policy('rules: {}'),
    errors: [
      'p.yaml:5:10: spec.rules: needs at least one rule: nodeLabels, gpu, numa, latency, bandwidth, pack, colocate, spread or dra',
    ],
  },
  {
    name: 'onUnsatisfiable enum',
    text: policy('onUnsatisfiable: reject\nrules: {spread: [{topologyKey: zone}]}'),
    errors: ['p.yaml:5:20: spec.onUnsatisfiable: must be one of Warn, Reject; got "reject" (did you mean "Reject"?)'],
  },
  {
    name: 'mode enum',
    text: policy('rules:\n  gpu: {mode: Prefered}'),
    errors: [
      'p.yaml:6:17: spec.rules.gpu.mode: must be one of Required, Preferred; got "Prefered" (did you mean "Preferred"?)',
    ],
  },
  {
    name: 'qosClasses enum',
    text: policy('match: {qosClasses: [Burstible]}\nrules: {spread: [{topologyKey: zone}]}'),
    errors: [
      'p.yaml:5:24: spec.match.qosClasses[0]: must be one of Guaranteed, Burstable, BestEffort; got "Burstible" (did you mean "Burstable"?)',
    ],
  },
  {
    name: 'whenUnsatisfiable enum',
    text: policy('rules:\n  spread: [{topologyKey: zone, whenUnsatisfiable: DoNotScheduled}]'),
    errors: [
      'p.yaml:6:53: spec.rules.spread[0].whenUnsatisfiable: must be one of DoNotSchedule, ScheduleAnyway; got "DoNotScheduled" (did you mean "DoNotSchedule"?)',
    ],
  },
  {
    name: 'operator enum',
    text: policy('rules:\n  nodeLabels:\n    required: [{key: disk, operator: Equals, values: [ssd]}]'),
    errors: [
      'p.yaml:7:40: spec.rules.nodeLabels.required[0].operator: must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt; got "Equals"',
    ],
  },
  {
    name: 'In needs values',
    text: policy('rules:\n  nodeLabels:\n    required: [{key: disk, operator: In}]'),
    errors: ['p.yaml:7:18: spec.rules.nodeLabels.required[0].values: must list at least one value for operator In'],
  },
  {
    name: 'Exists takes no values',
    text: policy(
      'rules:\n  nodeLabels:\n    required:\n      - key: disk\n        operator: Exists\n        values: [ssd]',
    ),
    errors: ['p.yaml:10:19: spec.rules.nodeLabels.required[0].values: must be empty for operator Exists'],
  },
  {
    name: 'Gt takes exactly one value',
    text: policy('rules:\n  nodeLabels:\n    required: [{key: cores, operator: Gt, values: ["1", "2"]}]'),
    errors: ['p.yaml:7:53: spec.rules.nodeLabels.required[0].values: must hold exactly one integer for operator Gt'],
  },
  {
    name: 'Lt takes an integer',
    text: policy('rules:\n  nodeLabels:\n    required: [{key: cores, operator: Lt, values: ["1.5"]}]'),
    errors: ['p.yaml:7:54: spec.rules.nodeLabels.required[0].values[0]: "1.5" is not an integer (operator Lt)'],
  },
  {
    name: 'label selectors have no Gt',
    text: policy(
      'match:\n  podSelector: {matchExpressions: [{key: tier, operator: Gt, values: ["1"]}]}\nrules: {spread: [{topologyKey: zone}]}',
    ),
    errors: [
      'p.yaml:6:60: spec.match.podSelector.matchExpressions[0].operator: must be one of In, NotIn, Exists, DoesNotExist; got "Gt"',
    ],
  },
  {
    name: 'label key syntax',
    text: policy('rules:\n  spread: [{topologyKey: "-zone"}]'),
    errors: [
      `p.yaml:6:28: spec.rules.spread[0].topologyKey: "-zone" is not a valid label key (an optional DNS subdomain prefix and '/', then a name of at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric)`,
    ],
  },
  {
    name: 'label key syntax in matchLabels points at the key',
    text: policy(
      'match:\n  namespaceSelector:\n    matchLabels: {"Team Name": ml}\nrules: {spread: [{topologyKey: zone}]}',
    ),
    errors: [
      `p.yaml:7:21: spec.match.namespaceSelector.matchLabels["Team Name"]: "Team Name" is not a valid label key (an optional DNS subdomain prefix and '/', then a name of at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric)`,
    ],
  },
  {
    name: 'label value syntax',
    text: policy('match:\n  podSelector: {matchLabels: {app: "web app"}}\nrules: {spread: [{topologyKey: zone}]}'),
    errors: [
      `p.yaml:6:38: spec.match.podSelector.matchLabels.app: "web app" is not a valid label value (empty, or at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric)`,
    ],
  },
  {
    name: 'namespace glob syntax',
    text: policy('match: {namespaces: ["team-[ab]"]}\nrules: {spread: [{topologyKey: zone}]}'),
    errors: [
      'p.yaml:5:24: spec.match.namespaces[0]: "team-[ab]" is not a valid namespace glob: "[" is not allowed (globs have only the wildcards * and ?)',
    ],
  },
  {
    name: 'product glob syntax',
    text: policy('rules:\n  gpu: {products: ["NVIDIA H100*"]}'),
    errors: [
      'p.yaml:6:22: spec.rules.gpu.products[0]: "NVIDIA H100*" is not a valid label value glob: " " is not allowed',
    ],
  },
  {
    name: 'preferred weight range',
    text: policy('rules:\n  nodeLabels:\n    preferred: [{weight: 0, requirements: [{key: disk, operator: Exists}]}]'),
    errors: ['p.yaml:7:28: spec.rules.nodeLabels.preferred[0].weight: must be from 1 to 100, got 0'],
  },
  {
    name: 'gpu weight range',
    text: policy('rules:\n  gpu: {mode: Preferred, weight: 101}'),
    errors: ['p.yaml:6:36: spec.rules.gpu.weight: must be from 1 to 100, got 101'],
  },
  {
    name: 'gpu memory must be positive',
    text: policy('rules:\n  gpu: {minMemoryMiB: 0}'),
    errors: ['p.yaml:6:25: spec.rules.gpu.minMemoryMiB: must be at least 1, got 0'],
  },
  {
    name: 'numa candidates at least one',
    text: policy('rules:\n  numa: {maxCandidates: 0}'),
    errors: ['p.yaml:6:27: spec.rules.numa.maxCandidates: must be at least 1, got 0'],
  },
  {
    name: 'latency percentile: only p50 or p99',
    text: policy('rules:\n  latency: {to: {zone: a}, maxRttMs: 2, percentile: p95}'),
    errors: ['p.yaml:6:55: spec.rules.latency.percentile: must be one of p50, p99; got "p95" (did you mean "p99"?)'],
  },
  {
    name: 'bandwidth: minGbps is required and not negative',
    text: policy('rules:\n  bandwidth: {to: {service: data/warehouse}, minGbps: -1, mode: Required}'),
    errors: ['p.yaml:6:57: spec.rules.bandwidth.minGbps: must be at least 0, got -1'],
  },
  {
    name: 'bandwidth: the target takes exactly one form',
    text: policy('rules:\n  bandwidth: {to: {zone: a, service: data/w}, minGbps: 5}'),
    errors: [
      'p.yaml:6:21: spec.rules.bandwidth.to: needs exactly one of zone, service or etcdLeader; zone and service are given',
    ],
  },
  {
    name: 'pack: level must be one of levels',
    text: policy(
      'rules:\n  pack:\n    levels: [topology.kubernetes.io/zone, topogate.dev/rack]\n    level: topogate.dev/block',
    ),
    errors: [
      'p.yaml:8:14: spec.rules.pack.level: must be one of levels [topology.kubernetes.io/zone, topogate.dev/rack]',
    ],
    loaderOnly: true,
  },
  {
    name: 'pack: levels are label keys',
    text: policy('rules:\n  pack: {levels: ["not a key"], level: "not a key", mode: Always}'),
    errors: [
      `p.yaml:6:21: spec.rules.pack.levels[0]: "not a key" is not a valid label key (an optional DNS subdomain prefix and '/', then a name of at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric)`,
      `p.yaml:6:42: spec.rules.pack.level: "not a key" is not a valid label key (an optional DNS subdomain prefix and '/', then a name of at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric)`,
      'p.yaml:6:61: spec.rules.pack.mode: must be one of Required, Preferred; got "Always"',
    ],
  },
  {
    name: 'dra: alignBy is a device attribute name',
    text: policy('rules:\n  dra: {alignBy: "resource.kubernetes.io/pcie-root"}'),
    errors: [
      `p.yaml:6:20: spec.rules.dra.alignBy: "resource.kubernetes.io/pcie-root" is not a valid device attribute name (an optional DNS subdomain and '/', then a C identifier of at most 32 characters, such as resource.kubernetes.io/pcieRoot)`,
    ],
  },
  {
    name: 'latency target: none',
    text: policy('rules:\n  latency: {to: {}, maxRttMs: 2}'),
    errors: ['p.yaml:6:19: spec.rules.latency.to: needs exactly one of zone, service or etcdLeader; none is given'],
  },
  {
    name: 'latency target: two',
    text: policy('rules:\n  latency:\n    to: {zone: us-east-1a, etcdLeader: true}\n    maxRttMs: 2'),
    errors: [
      'p.yaml:7:11: spec.rules.latency.to: needs exactly one of zone, service or etcdLeader; zone and etcdLeader are given',
    ],
  },
  {
    name: 'latency target: service is NAMESPACE/NAME',
    text: policy('rules:\n  latency: {to: {service: etcd}, maxRttMs: 2}'),
    errors: ['p.yaml:6:29: spec.rules.latency.to.service: "etcd" must be NAMESPACE/NAME'],
  },
  {
    name: 'latency target: etcdLeader only true',
    text: policy('rules:\n  latency: {to: {etcdLeader: false}, maxRttMs: 2}'),
    errors: ['p.yaml:6:32: spec.rules.latency.to.etcdLeader: must be true; got boolean'],
  },
  {
    name: 'maxRttMs not negative, and required',
    text:
      policy('rules:\n  latency: {to: {zone: a}, maxRttMs: -1}\n  spread: [{topologyKey: zone}]') +
      '---\n' +
      policy('rules:\n  latency: {to: {zone: a}}', 'q'),
    errors: [
      'p.yaml:6:40: spec.rules.latency.maxRttMs: must be at least 0, got -1',
      'p.yaml:14:14: spec.rules.latency.maxRttMs: required field is missing',
    ],
  },
  {
    name: 'maxSkew at least one',
    text: policy('rules:\n  spread: [{topologyKey: zone, maxSkew: 0}]'),
    errors: ['p.yaml:6:43: spec.rules.spread[0].maxSkew: must be at least 1, got 0'],
  },
  {
    name: 'minDomains only with DoNotSchedule',
    text: policy('rules:\n  spread:\n    - topologyKey: zone\n      minDomains: 3'),
    errors: ['p.yaml:8:21: spec.rules.spread[0].minDomains: is only allowed with whenUnsatisfiable: DoNotSchedule'],
  },
  {
    name: 'minDomains at least one',
    text: policy('rules:\n  spread: [{topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 0}]'),
    errors: ['p.yaml:6:80: spec.rules.spread[0].minDomains: must be at least 1, got 0'],
  },
  {
    name: 'duplicate spread constraints',
    loaderOnly: true,
    text: policy('rules:\n  spread:\n    - topologyKey: zone\n    - {topologyKey: zone, maxSkew: 2}'),
    errors: [
      'p.yaml:8:9: spec.rules.spread[1]: repeats the topologyKey and whenUnsatisfiable of entry 0 (the API server rejects such duplicates)',
    ],
  },
  {
    name: 'null where a map belongs',
    text: policy('rules:\n  numa:'),
    errors: ['p.yaml:6:5: spec.rules.numa: expected a map, got null'],
  },
  {
    name: 'YAML syntax',
    loaderOnly: true,
    text: policy('rules: {spread: [{topologyKey: zone}]'),
    errors: ['p.yaml:6:1: invalid YAML: Flow map in block collection must be sufficiently indented and end with a }'],
  },
  {
    name: 'a !!set, which would become {} and match every namespace',
    loaderOnly: true,
    text: policy(
      'match: {namespaceSelector: {matchLabels: !!set {tier, frontend}}}\nrules: {spread: [{topologyKey: zone}]}',
    ),
    errors: [
      'p.yaml:5:50: invalid YAML: the tag !!set is not allowed: only plain YAML (maps, lists, strings, numbers, booleans, null)',
    ],
  },
  {
    name: 'an !!omap, and a local tag',
    loaderOnly: true,
    text: policy(
      'match: {namespaceSelector: {matchLabels: !!omap [tier: web]}}\nrules: {spread: [{topologyKey: !zone z}]}',
    ),
    errors: [
      'p.yaml:5:51: invalid YAML: the tag !!omap is not allowed: only plain YAML (maps, lists, strings, numbers, booleans, null)',
    ],
  },
  {
    name: 'duplicate YAML keys',
    loaderOnly: true,
    text: policy('priority: 1\npriority: 2\nrules: {spread: [{topologyKey: zone}]}'),
    errors: ['p.yaml:6:3: invalid YAML: Map keys must be unique'],
  },
];

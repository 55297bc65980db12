// What the fuzzers start from and how they spoil it: the real-world Pods and
// AdmissionReviews of the shared fixtures, mutated at random places into
// wrong types, nulls, huge strings and arrays, deep nesting, unicode and
// prototype keys. Mutating real objects reaches far deeper into the decision
// than random JSON, which fails at the first field.

import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';

const fixtures = new URL('../../../../shared/fixtures/real-world/', import.meta.url);

/** `FUZZ_RUNS=100000 npm test` (or one file) for a long run; a few seconds' worth by default. */
export function fuzzRuns(byDefault: number): number {
  const runs = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(runs) && runs > 0 ? runs : byDefault;
}

/** FUZZ_SEED replays a failure fast-check reported; a fixed seed by default, so `npm test` is repeatable. */
export function fuzzSeed(): number {
  const seed = Number(process.env.FUZZ_SEED);
  return Number.isInteger(seed) ? seed : 20261202;
}

function documentsIn(folder: string): { file: string; value: Record<string, unknown> }[] {
  return readdirSync(new URL(folder, fixtures))
    .sort()
    .flatMap((file) => {
      const text = readFileSync(new URL(`${folder}${file}`, fixtures), 'utf8');
      const values: unknown[] = file.endsWith('.json')
        ? [JSON.parse(text)]
        : parseAllDocuments(text).map((document) => document.toJS());
      return values
        .filter((value): value is Record<string, unknown> => typeof value === 'object' && value !== null)
        .map((value) => ({ file, value }));
    });
}

/** Every Pod in the fixtures, and every workload's pod template made a Pod. */
export const basePods: readonly Record<string, unknown>[] = documentsIn('pods/').flatMap(({ value }) => {
  if (value.kind === 'Pod') return [value];
  const spec = value.spec as
    { template?: Record<string, unknown>; jobTemplate?: { spec?: { template?: Record<string, unknown> } } } | undefined;
  const template = spec?.template ?? spec?.jobTemplate?.spec?.template;
  return template ? [{ apiVersion: 'v1', kind: 'Pod', ...template }] : [];
});

/** Every AdmissionReview in the fixtures (bare requests wrapped as v1), and a Pod CREATE review per Pod. */
export const baseReviews: readonly Record<string, unknown>[] = [
  ...documentsIn('admission/').map(({ value }) =>
    value.kind === 'AdmissionReview'
      ? value
      : { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: value },
  ),
  ...basePods.map((pod, index) => podCreateReview(pod, `uid-${index}`, 'web')),
];

export function podCreateReview(pod: unknown, uid: string, namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      operation: 'CREATE',
      namespace,
      object: pod,
    },
  };
}

/** Namespaces of the demo cluster (examples/cluster), so that policies' namespace selectors match. */
export const namespaces = ['default', 'web', 'ml-training', 'kube-system', 'payments', 'no-such-namespace'];

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { a: value } : [value];
  return value;
}

/** Keys that pollute a prototype when code merges objects key by key; own properties when JSON.parse makes them. */
const prototypeKeys = JSON.parse(
  '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}}',
) as Record<string, unknown>;

const keys = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '',
    '~',
    '/',
    'a/b~c',
    'cpu',
    'nvidia.com/gpu',
    'topology.kubernetes.io/zone',
    'length',
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** Values in the wrong place: every JSON type, extremes of each, unicode and prototype keys; all small. */
export const smallGarbage: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -0,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    '',
    '0',
    '1e400',
    'NaN',
    '-1',
    '1Gi',
    '100m',
    '4.5',
    '0x10',
    [],
    {},
    [null],
    { '': null },
  ),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('\u0000', '\uFEFF', '\u202E', 'Ω≈ç√', '🚀🔥', '\uD800', 'a\nb', '"', '\\', 'true'),
  fc.constant(prototypeKeys),
);

/** The small values, and shapes that attack parsers and walkers: huge strings and arrays, deep nesting. */
export const garbage: fc.Arbitrary<unknown> = fc.oneof(
  smallGarbage,
  fc.integer({ min: 1_000, max: 200_000 }).map((length) => 'x'.repeat(length)),
  fc
    .integer({ min: 100, max: 20_000 })
    .map((length) =>
      Array.from({ length }, (_, index) => ({ name: `c${index}`, key: 'k', operator: 'In', values: ['v'] })),
    ),
  fc.integer({ min: 10, max: 400 }).map((depth) => nested(depth, 'deep')),
);

type Mutation = {
  readonly at: number;
  readonly action: 'replace' | 'delete' | 'add';
  readonly key: string;
  readonly value: unknown;
};

const mutation = (values: fc.Arbitrary<unknown>): fc.Arbitrary<Mutation> =>
  fc.record({
    at: fc.nat(),
    action: fc.constantFrom('replace' as const, 'delete' as const, 'add' as const),
    key: keys,
    value: values,
  });

type Container = Record<string, unknown> | unknown[];
type Slot = { readonly parent: Container; readonly key: string | number };

/** Every place in a value, parents before children (bounded, so huge values added by earlier mutations stay cheap). */
function slots(root: Container): Slot[] {
  const found: Slot[] = [];
  const pending: Container[] = [root];
  for (let container = pending.pop(); container !== undefined && found.length < 2_000; container = pending.pop()) {
    const entries: [string | number, unknown][] = Array.isArray(container)
      ? container.slice(0, 50).map((item, index) => [index, item])
      : Object.entries(container);
    for (const [key, item] of entries) {
      found.push({ parent: container, key });
      if (typeof item === 'object' && item !== null) pending.push(item as Container);
    }
  }
  return found;
}

function defineOwn(target: Container, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mutate(base: unknown, mutations: readonly Mutation[]): unknown {
  const root = { root: structuredClone(base) };
  for (const { at, action, key, value } of mutations) {
    const places = slots(root);
    const place = places[at % places.length];
    if (place === undefined) continue;
    const target = (place.parent as Record<string | number, unknown>)[place.key];
    if (action === 'replace' || typeof target !== 'object' || target === null)
      defineOwn(place.parent, place.key, structuredClone(value));
    else if (action === 'delete' && Array.isArray(place.parent)) place.parent.splice(Number(place.key), 1);
    else if (action === 'delete') delete (place.parent as Record<string | number, unknown>)[place.key];
    else if (Array.isArray(target)) target.push(structuredClone(value));
    // An own "__proto__" property, as JSON.parse makes it; an assignment would set the prototype instead.
    else defineOwn(target as Container, key, structuredClone(value));
  }
  return root.root;
}

/** A base mutated in one to four places; sometimes left as it is, so the well-formed path is fuzzed too. */
export function mutated(bases: readonly unknown[], values: fc.Arbitrary<unknown> = garbage): fc.Arbitrary<unknown> {
  return fc
    .tuple(fc.constantFrom(...bases), fc.array(mutation(values), { minLength: 0, maxLength: 4 }))
    .map(([base, mutations]) => mutate(base, mutations));
}

/** The own property names of the built-in prototypes, to show that nothing was added to them. */
export function prototypeFingerprint(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((proto) => Reflect.ownKeys(proto).map(String).sort().join(','))
    .join('|');
}

// How go-yaml v2 (kubectl's reader, under sigs.k8s.io/yaml) resolves a plain scalar: its resolve() rules
// restated. The first character decides what a scalar may be: a sign or digit (a number; a timestamp, which
// go-yaml hands on as the string it was), a dot (a float), one of yYnNtTfFoO~ (a boolean or null by its exact
// spelling); anything else is a string. Underscores are dropped before reading a number, which is then
// strconv.ParseInt(…, 0, 64), ParseUint(…, 0, 64), or a float of the form [-+](.d+|d+(.d*)?)([eE][-+]?d+)
// that ParseFloat can hold. A number out of range is a string, so nothing resolves to NaN or Infinity but
// .nan and .inf themselves.

import type { ScalarTag } from 'yaml';

export type GoScalar =
  | { readonly kind: 'null'; readonly value: null }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int' | 'float'; readonly value: number }
  | { readonly kind: 'str'; readonly value: string };

const SPELLED: ReadonlyMap<string, GoScalar> = new Map<string, GoScalar>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map(
    (text) => [text, { kind: 'bool', value: true }] as const,
  ),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map(
    (text) => [text, { kind: 'bool', value: false }] as const,
  ),
  ...['', '~', 'null', 'Null', 'NULL'].map((text) => [text, { kind: 'null', value: null }] as const),
  ...['.nan', '.NaN', '.NAN'].map((text) => [text, { kind: 'float', value: Number.NaN }] as const),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map(
    (text) => [text, { kind: 'float', value: Number.POSITIVE_INFINITY }] as const,
  ),
  ...['-.inf', '-.Inf', '-.INF'].map((text) => [text, { kind: 'float', value: Number.NEGATIVE_INFINITY }] as const),
]);

const LONGEST_SPELLED = Math.max(...[...SPELLED.keys()].map((text) => text.length));

/** go-yaml's resolveTable: what a scalar's first character lets it be. */
function hintOf(first: string | undefined): 'number' | 'dot' | 'spelled' | undefined {
  if (first === undefined) return 'spelled';
  if (first === '+' || first === '-' || (first >= '0' && first <= '9')) return 'number';
  if (first === '.') return 'dot';
  return 'yYnNtTfFoO~'.includes(first) ? 'spelled' : undefined;
}

const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const DIGITS: Readonly<Record<number, RegExp>> = {
  2: /^[01]+$/,
  8: /^[0-7]+$/,
  10: /^[0-9]+$/,
  16: /^[0-9a-fA-F]+$/,
};
const PREFIX: Readonly<Record<number, string>> = { 2: '0b', 8: '0o', 10: '', 16: '0x' };
const RADIX_OF: Readonly<Record<string, number>> = { b: 2, o: 8, x: 16 };

const str = (value: string): GoScalar => ({ kind: 'str', value });

/** What kubectl reads a plain (unquoted, untagged) scalar as. */
export function resolveGoYamlV2(text: string): GoScalar {
  const hint = hintOf(text[0]);
  if (hint === undefined) return str(text);
  // Only short texts are looked up: a Map lookup changes how V8 holds a long string (yaml.ts keeps them flat).
  const spelled = text.length <= LONGEST_SPELLED ? SPELLED.get(text) : undefined;
  if (spelled !== undefined) return spelled;
  if (hint === 'dot') return DOT_FLOAT.test(text) ? finiteFloat(text) : str(text);
  if (hint === 'spelled') return str(text);
  const plain = text.replaceAll('_', '');
  const integer = parseGoInt(plain, 0) ?? parseGoUint(plain, 0);
  if (integer !== undefined) return { kind: 'int', value: Number(integer) };
  if (YAML_STYLE_FLOAT.test(plain)) {
    const float = finiteFloat(plain);
    if (float.kind === 'float') return float;
  }
  // go-yaml tries a "0b" prefix once more with base 2, where ParseInt also takes a sign: 0b-101 is -5.
  if (plain.startsWith('0b')) {
    const binary = parseGoInt(plain.slice(2), 2) ?? parseGoUint(plain.slice(2), 2);
    if (binary !== undefined) return { kind: 'int', value: Number(binary) };
  }
  return str(text);
}

/** ParseFloat's answer: a value out of float64's range is an error, and go-yaml then keeps the string. */
function finiteFloat(text: string): GoScalar {
  const value = Number(text);
  return Number.isFinite(value) ? { kind: 'float', value } : str(text);
}

/** strconv.ParseInt(text, base, 64): a sign, then ParseUint's digits, within int64. */
function parseGoInt(text: string, base: 0 | 2): bigint | undefined {
  const sign = text[0] === '-' || text[0] === '+' ? text[0] : '';
  const magnitude = parseGoUint(text.slice(sign.length), base);
  if (magnitude === undefined) return undefined;
  const value = sign === '-' ? -magnitude : magnitude;
  return value > INT64_MAX || value < -INT64_MAX - 1n ? undefined : value;
}

/** strconv.ParseUint(text, base, 64) after underscores are gone: base 0 reads 0b/0o/0x and a leading 0 as octal. */
function parseGoUint(text: string, base: 0 | 2): bigint | undefined {
  let radix: number = base === 0 ? 10 : base;
  let digits = text;
  if (base === 0 && text[0] === '0') {
    const marker = text[1]?.toLowerCase();
    const prefixed = text.length >= 3 && (marker === 'b' || marker === 'o' || marker === 'x');
    radix = prefixed ? RADIX_OF[marker]! : 8;
    digits = text.slice(prefixed ? 2 : 1);
    if (!prefixed && digits === '') return 0n;
  }
  if (!DIGITS[radix]!.test(digits)) return undefined;
  const value = BigInt(`${PREFIX[radix]}${digits}`);
  return value > UINT64_MAX ? undefined : value;
}

/**
 * The yaml library asks each default tag's `test` whether a plain scalar is its own, both when reading and when
 * deciding whether a string must be quoted: this `test` asks go-yaml's rules instead of a pattern.
 */
class ResolvesAs extends RegExp {
  readonly #kind: GoScalar['kind'];

  constructor(kind: GoScalar['kind']) {
    super('(?:)');
    this.#kind = kind;
  }

  override test(text: string): boolean {
    return resolveGoYamlV2(text).kind === this.#kind;
  }
}

const TAG = 'tag:yaml.org,2002:';
const KIND_OF_TAG: ReadonlyMap<string, GoScalar['kind']> = new Map(
  (['null', 'bool', 'int', 'float'] as const).map((kind) => [`${TAG}${kind}`, kind]),
);

/** go-yaml's reading; under an explicit tag (`!!int "12"`), one of another kind is refused as go-yaml refuses it. */
function goResolve(tag: string): NonNullable<ScalarTag['resolve']> {
  const wanted = KIND_OF_TAG.get(tag);
  return (text, onError) => {
    const { kind, value } = resolveGoYamlV2(text);
    // An integer is a float too.
    if (kind !== wanted && !(kind === 'int' && wanted === 'float'))
      onError(`cannot read ${JSON.stringify(text)} as !!${wanted} (kubectl refuses it too)`);
    // JSON has no NaN nor infinity: kubectl's conversion to JSON fails on them, and so does this reading, rather
    // than let them become null.
    else if (typeof value === 'number' && !Number.isFinite(value))
      onError(`${text} is a float that JSON cannot hold (kubectl refuses it too); quote it for a string`);
    return value;
  };
}

const reading = (kind: Exclude<GoScalar['kind'], 'str'>): ScalarTag => ({
  tag: `${TAG}${kind}`,
  default: true,
  // Only for reading (and so for quoting strings that would read as something else): writing is the library's.
  identify: () => false,
  test: new ResolvesAs(kind),
  resolve: goResolve(`${TAG}${kind}`),
});

/** Plain scalars as go-yaml v2 reads them, before the library's own tags (see asExplicitOnly). */
export const GO_YAML_V2_SCALARS: readonly ScalarTag[] = [
  reading('null'),
  reading('bool'),
  reading('int'),
  reading('float'),
];

/**
 * A library tag of the same names with its implicit pattern taken off: it still writes values, and reads a
 * scalar tagged explicitly (the library picks it by name), then by go-yaml's rules too.
 */
export function asExplicitOnly<Tag extends { readonly tag: string; readonly test?: RegExp }>(tag: Tag): Tag {
  if (!KIND_OF_TAG.has(tag.tag)) return tag;
  const { test: _pattern, ...rest } = tag;
  return { ...rest, resolve: goResolve(tag.tag) } as unknown as Tag;
}

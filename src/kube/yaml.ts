// YAML as kubectl reads it. kubectl (sigs.k8s.io/yaml over go-yaml v2) reads YAML 1.1 its own way:
// yes/no/on/off/y/n are booleans, 0400 is octal (256), Go's integer prefixes (0o17, 0X1F, 0B101) are
// integers, timestamps stay strings, and `e5` is a string too (go-yaml's rules: goYamlScalars.ts). Reading
// and writing with these options, `topogate mutate | kubectl apply -f -` means what the input meant: a string
// kubectl would read as something else is quoted.

import {
  Composer,
  isNode,
  Parser,
  parseAllDocuments,
  type Document,
  stringify,
  type CreateNodeOptions,
  type DocumentOptions,
  type LineCounter,
  type ParseOptions,
  type SchemaOptions,
  type ToStringOptions,
  visit,
} from 'yaml';
import { GO_YAML_V2_SCALARS, asExplicitOnly } from './goYamlScalars.ts';

/** The document tree's node tests and line counter, for readers that trace a value back to its line. */
export { isMap, isPair, isScalar, isSeq, LineCounter } from 'yaml';

const NOT_FOR_KUBECTL = new Set(['intTime', 'floatTime', 'timestamp', 'tag:yaml.org,2002:timestamp']);

const schema: DocumentOptions & SchemaOptions = {
  version: '1.1',
  // go-yaml hands timestamps to kubectl as strings and has no base-60 numbers.
  customTags: (tags) => [
    ...GO_YAML_V2_SCALARS,
    ...tags
      .filter((tag) =>
        typeof tag === 'string' ? !NOT_FOR_KUBECTL.has(tag) : tag.format !== 'TIME' && !NOT_FOR_KUBECTL.has(tag.tag),
      )
      .map((tag) => (typeof tag === 'string' ? tag : asExplicitOnly(tag))),
  ],
};

/** Every document of a stream, read as kubectl reads it. */
export function parseKubectlYaml(text: string, options: ParseOptions & DocumentOptions = {}) {
  return parseAllDocuments(text, { ...options, ...schema });
}

/**
 * The tags kubectl's JSON-shaped objects can hold. Others become what JSON cannot say: `!!set {a, b}` a Set,
 * which serialises to `{}` (a namespace selector that matched every namespace), `!!omap` a Map, `!!binary` a
 * Uint8Array, and an unknown `!local` tag a string with only a warning.
 */
const PLAIN_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

/** A node whose explicit tag is not one of the plain ones; `offset` is where it starts in the source. */
export class YamlTagError extends Error {
  readonly offset: number;
  constructor(tag: string, offset: number) {
    super(
      `the tag ${tag.replace('tag:yaml.org,2002:', '!!')} is not allowed: only plain YAML (maps, lists, strings, numbers, booleans, null)`,
    );
    this.offset = offset;
  }
}

/**
 * The documents of a stream one at a time, each composed only when asked for: a reader that stops early has
 * paid for no more. (parseAllDocuments composes them all first: a million empty documents took 57 s and 1.3 GB.)
 */
export function* kubectlYamlDocuments(
  text: string,
  options: { lineCounter?: LineCounter } & DocumentOptions = {},
): Generator<Document.Parsed> {
  const { lineCounter, ...rest } = options;
  const composer = new Composer({ ...rest, ...schema });
  yield* composer.compose(new Parser(lineCounter?.addNewLine).parse(text));
}

/** V8 copies a substring shorter than this (SlicedString::kMinLength); longer ones point into their source. */
const SHORTEST_SLICE = 13;

/**
 * A document's value as plain JS, its strings copies rather than slices of the source text (as the yaml library
 * makes them). V8's JSON.stringify leaves its fast path at a sliced string, and a policy's strings go into every
 * patch: a decision's patch took ~14 µs to serialise instead of ~8 (docs/benchmarks.md). The copies replace the
 * document's own scalars, which read the same. `maxAliasCount` bounds what aliases may expand to (a "billion
 * laughs" document is refused); -1 for trusted text only. A node tagged other than plainly throws a YamlTagError.
 */
export function documentValue(document: Document, maxAliasCount = 100): unknown {
  visit(document, (_key, node) => {
    if (isNode(node) && node.tag !== undefined && !PLAIN_TAGS.has(node.tag))
      throw new YamlTagError(node.tag, node.range?.[0] ?? 0);
  });
  visit(document, {
    Scalar(key, scalar) {
      // A map's keys become property names, which V8 copies anyway, and it copies short slices too.
      if (key === 'key' || typeof scalar.value !== 'string' || scalar.value.length < SHORTEST_SLICE) return;
      // Joined anew, character by character: slice() would slice again, and so would JSON.parse.
      scalar.value = [...scalar.value].join('');
    },
  });
  return document.toJS({ maxAliasCount });
}

/** One document that kubectl reads back as `value`. */
export function stringifyForKubectl(value: unknown, options: CreateNodeOptions & ToStringOptions = {}): string {
  return stringify(value, { ...options, ...schema });
}

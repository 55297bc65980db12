// YAML as kubectl reads it. kubectl (sigs.k8s.io/yaml over go-yaml v2) reads YAML 1.1 its own way:
// yes/no/on/off/y/n are booleans, 0400 is octal (256), Go's integer prefixes (0o17, 0X1F, 0B101) are
// integers, timestamps stay strings, and `e5` is a string too (go-yaml's rules: goYamlScalars.ts). Reading
// and writing with these options, `topogate mutate | kubectl apply -f -` means what the input meant: a string
// kubectl would read as something else is quoted.

import {
  parseAllDocuments,
  type Document,
  stringify,
  type CreateNodeOptions,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
  type ToStringOptions,
  visit,
} from 'yaml';
import { GO_YAML_V2_SCALARS, asExplicitOnly } from './goYamlScalars.ts';

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

/** V8 copies a substring shorter than this (SlicedString::kMinLength); longer ones point into their source. */
const SHORTEST_SLICE = 13;

/**
 * A document's value as plain JS, its strings copies rather than slices of the source text (as the yaml library
 * makes them). V8's JSON.stringify leaves its fast path at a sliced string, and a policy's strings go into every
 * patch: a decision's patch took ~14 µs to serialise instead of ~8 (docs/benchmarks.md). The copies replace the
 * document's own scalars, which read the same. `maxAliasCount` bounds what aliases may expand to (a "billion
 * laughs" document is refused); -1 for trusted text only.
 */
export function documentValue(document: Document, maxAliasCount = 100): unknown {
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

// YAML documents whose every value can be traced back to its line and
// column, so that schema issues become `file:line:col: message` errors.

import type { Document } from 'yaml';
import {
  documentValue,
  isMap,
  isPair,
  isScalar,
  isSeq,
  kubectlYamlDocuments,
  LineCounter,
  YamlTagError,
} from '../../kube/yaml.ts';
import type { PolicyError } from '../errors.ts';
import type { SourceLocation } from '../types.ts';
import type { Issue, Path } from '../../api/schema/issue.ts';

export interface LocatedDocument {
  readonly value: unknown;
  /** Where the node at `path` starts (its key with at = 'key'; the deepest existing node when it is missing). */
  locate(path: Path, at?: Issue['at']): SourceLocation;
}

/**
 * The non-empty documents of a YAML stream; a document with a syntax error yields errors instead. Past `maxDocuments`
 * documents (empty ones too) it stops, with an error: a stream of a million empty documents is read no further.
 */
export function readYamlDocuments(
  text: string,
  file: string,
  maxDocuments = Number.POSITIVE_INFINITY,
): { documents: LocatedDocument[]; errors: PolicyError[] } {
  const lineCounter = new LineCounter();
  const documents: LocatedDocument[] = [];
  const errors: PolicyError[] = [];
  const at = (offset: number) => ({ file, ...lineCounter.linePos(offset) });
  let count = 0;
  for (const doc of kubectlYamlDocuments(text, { lineCounter })) {
    if (++count > maxDocuments) {
      errors.push({ ...at(doc.range[0]), message: `more than ${maxDocuments} YAML documents: the rest is not read` });
      break;
    }
    if (doc.errors.length > 0) {
      for (const error of doc.errors)
        errors.push({ ...at(error.pos[0]), message: `invalid YAML: ${firstLine(error.message)}` });
      continue;
    }
    if (doc.contents === null || isEmptyScalar(doc.contents)) continue;
    try {
      documents.push({
        value: documentValue(doc),
        locate: (path, where = 'value') => at(offsetOf(doc, path, where)),
      });
    } catch (error) {
      const offset = error instanceof YamlTagError ? error.offset : doc.contents.range[0];
      errors.push({ ...at(offset), message: `invalid YAML: ${(error as Error).message}` });
    }
  }
  return { documents, errors };
}

/** Issues as errors, in source order. */
export function locatedErrors(issues: readonly Issue[], locate: LocatedDocument['locate']): PolicyError[] {
  return issues.map((issue) => ({ ...locate(issue.path, issue.at), message: describeIssue(issue) })).sort(byPosition);
}

const byPosition = (a: PolicyError, b: PolicyError) => a.line - b.line || a.col - b.col;

/** `path: message`. */
export function describeIssue(issue: Issue): string {
  const path = formatPath(issue.path);
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

/** `spec.rules.spread[0].topologyKey`; keys that are not identifiers are quoted: `matchLabels["app.kubernetes.io/name"]`. */
export function formatPath(path: Path): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** The source offset of the node an issue is about: the deepest node of the path that exists. */
function offsetOf(doc: Document.Parsed, path: Path, where: Issue['at']): number {
  const target = where === 'parent' ? path.slice(0, -1) : path;
  let node: unknown = doc.contents;
  let offset = doc.contents?.range[0] ?? 0;
  for (const [depth, segment] of target.entries()) {
    const pair = isMap(node)
      ? node.items.find((item) => isPair(item) && keyText(item.key) === String(segment))
      : undefined;
    const next = pair ? pair.value : isSeq(node) && typeof segment === 'number' ? node.items[segment] : undefined;
    if (pair && where === 'key' && depth === target.length - 1) return rangeStart(pair.key) ?? offset;
    const start = (isEmptyScalar(next) ? undefined : rangeStart(next)) ?? (pair ? rangeStart(pair.key) : undefined);
    if (start === undefined) return offset;
    offset = start;
    node = next;
  }
  return offset;
}

/** `key:` with nothing after it: point at the key, not at the empty spot. */
function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null && node.source === '';
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range?.[0];
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

// The loader's reading of a TypeBox (JSON Schema) schema: it checks a plain value, applies the defaults
// and runs the refinements, collecting every issue with its path, a message written for the person
// who edits the YAML, and a "did you mean" for misspelt keys and enum values. TypeBox's own validator
// answers valid or not and reports errors by schema keyword; the loader needs messages and locations
// per field, defaults in the output, and refinements run only on values whose parts are valid, so it
// walks the schema itself. It reads the keywords the SchedulingPolicy schema (src/api/v1alpha1/) and
// test-suite.ts use; the JSON-only assertions (allOf, anyOf, if, min/maxProperties) and x-kubernetes-*
// restate a refinement, and a pattern approximates one (test/unit/api/crd-schema.test.ts and
// test/unit/api/v1alpha1/schema-source.test.ts hold both).

import type { Static, TSchema } from 'typebox';
import { didYouMean } from './hint.ts';
import type { Issue, Path } from '../../api/schema/issue.ts';
import { isPlainMap, typeName } from '../../api/schema/issue.ts';
import type { Refinement } from '../../api/schema/refine.ts';
import { refinement } from '../../api/schema/refine.ts';

export interface SchemaNode {
  readonly [keyword: string]: unknown;
  readonly [refinement]?: Refinement<never>;
}

/** `value` checked against `schema`, with defaults applied, or undefined once the reasons are in `issues`. */
export function checkDocument<T extends TSchema>(schema: T, value: unknown, issues: Issue[], path: Path = []) {
  return checkValue(schema as unknown as SchemaNode, value, path, issues) as Static<T> | undefined;
}

function checkValue(schema: SchemaNode, value: unknown, path: Path, issues: Issue[]): unknown {
  const before = issues.length;
  const checked = checkShape(schema, value, path, issues);
  if (issues.length > before) return undefined;
  (schema[refinement] as Refinement<unknown> | undefined)?.(checked, path, issues);
  return issues.length > before ? undefined : checked;
}

function checkShape(schema: SchemaNode, value: unknown, path: Path, issues: Issue[]): unknown {
  const values = schema.const !== undefined ? [schema.const] : (schema.enum as readonly unknown[] | undefined);
  if (values !== undefined) return checkEnum(values, value, path, issues);
  switch (schema.type) {
    case 'string':
      return checkString(schema, value, path, issues);
    case 'integer':
    case 'number':
      return checkNumber(schema, value, path, issues);
    case 'boolean':
      return typeof value === 'boolean' ? value : wrongType('true or false', value, path, issues);
    case 'array':
      return checkList(schema, value, path, issues);
    case 'object':
      return checkMap(schema, value, path, issues);
    case undefined:
      return value;
    default:
      return checkTypes(schema.type as readonly string[], value, path, issues);
  }
}

function wrongType(expected: string, value: unknown, path: Path, issues: Issue[]): undefined {
  issues.push({ path, at: 'value', message: `expected ${expected}, got ${typeName(value)}` });
  return undefined;
}

function checkEnum(values: readonly unknown[], value: unknown, path: Path, issues: Issue[]): unknown {
  if (values.includes(value)) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value) : typeName(value);
  const guess = typeof value === 'string' ? didYouMean(value, values.map(String)) : '';
  const expected = values.length === 1 ? String(values[0]) : `one of ${values.join(', ')}`;
  issues.push({ path, at: 'value', message: `must be ${expected}; got ${shown}${guess}` });
  return undefined;
}

function checkString(schema: SchemaNode, value: unknown, path: Path, issues: Issue[]): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') {
    issues.push({ path, at: 'value', message: `expected a string, got ${typeName(value)} (quote it: "${value}")` });
    return undefined;
  }
  if (typeof value !== 'string') return wrongType('a string', value, path, issues);
  const maxLength = schema.maxLength as number | undefined;
  if (maxLength === undefined || [...value].length <= maxLength) return value;
  issues.push({ path, at: 'value', message: `must be at most ${maxLength} characters long, got ${[...value].length}` });
  return undefined;
}

function checkNumber(schema: SchemaNode, value: unknown, path: Path, issues: Issue[]): number | undefined {
  const integer = schema.type === 'integer';
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isSafeInteger(value)))
    return wrongType(integer ? 'an integer' : 'a number', value, path, issues);
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    const range =
      min !== undefined && max !== undefined ? `from ${min} to ${max}` : min !== undefined ? `at least ${min}` : '';
    issues.push({ path, at: 'value', message: `must be ${range || `at most ${max}`}, got ${value}` });
    return undefined;
  }
  return value;
}

function checkList(schema: SchemaNode, value: unknown, path: Path, issues: Issue[]): unknown[] | undefined {
  if (!Array.isArray(value)) return wrongType('a list', value, path, issues);
  const { minItems = 0, maxItems = Infinity } = schema as { minItems?: number; maxItems?: number };
  if (value.length < minItems || value.length > maxItems) {
    const [bound, count] = value.length < minItems ? ['least', minItems] : ['most', maxItems];
    issues.push({ path, at: 'value', message: `must have at ${bound} ${count} item${count === 1 ? '' : 's'}` });
    return undefined;
  }
  const before = issues.length;
  const items = value.map((item, index) => checkValue(schema.items as SchemaNode, item, [...path, index], issues));
  return issues.length > before ? undefined : items;
}

/**
 * additionalProperties false: only the known fields (an unknown one is an issue); a schema: a map of
 * free keys (checked by propertyNames) to such values; absent: the known fields are read, others ignored.
 */
function checkMap(schema: SchemaNode, value: unknown, path: Path, issues: Issue[]): object | undefined {
  if (!isPlainMap(value)) return wrongType('a map', value, path, issues);
  const before = issues.length;
  const properties = (schema.properties ?? {}) as Readonly<Record<string, SchemaNode>>;
  const entries = schema.additionalProperties as SchemaNode | false | undefined;
  const result: Record<string, unknown> = {};
  for (const [key, given] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) continue;
    if (entries === false)
      issues.push({
        path: [...path, key],
        at: 'key',
        message: `unknown field${didYouMean(key, Object.keys(properties))}`,
      });
    if (typeof entries !== 'object') continue;
    const keyIssues: Issue[] = [];
    if (schema.propertyNames) checkValue(schema.propertyNames as SchemaNode, key, [...path, key], keyIssues);
    issues.push(...keyIssues.map((issue): Issue => ({ ...issue, at: 'key' })));
    result[key] = checkValue(entries, given, [...path, key], issues);
  }
  const required = (schema.required ?? []) as readonly string[];
  for (const [key, property] of Object.entries(properties)) {
    const given = value[key];
    if (given !== undefined) result[key] = checkValue(property, given, [...path, key], issues);
    else if (property.default !== undefined) result[key] = structuredClone(property.default);
    else if (required.includes(key))
      issues.push({ path: [...path, key], at: 'parent', message: 'required field is missing' });
  }
  return issues.length > before ? undefined : result;
}

/** A value of any of several JSON types, taken as it is. */
function checkTypes(types: readonly string[], value: unknown, path: Path, issues: Issue[]): unknown {
  const words: Readonly<Record<string, string>> = { string: 'a string', object: 'a map', array: 'a list' };
  const given = typeName(value) === 'map' ? 'object' : typeName(value) === 'list' ? 'array' : typeof value;
  if (types.includes(given)) return value;
  return wrongType(types.map((type) => words[type] ?? type).join(' or '), value, path, issues);
}

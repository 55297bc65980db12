// A tiny schema language: each schema both checks a plain value (collecting
// located issues, applying defaults) and describes itself as JSON Schema
// (draft 2020-12), so the published schema and the loader cannot drift apart.

export type Path = readonly (string | number)[];

export interface Issue {
  /** The field the message is about. */
  readonly path: Path;
  /** Where to point: at the field's key (unknown fields), its value, or the map that lacks it. */
  readonly at: 'key' | 'value' | 'parent';
  readonly message: string;
}

export type JsonSchema = Readonly<Record<string, unknown>>;

export interface Schema<T> {
  /** The checked value with defaults applied, or undefined once the reasons are in `issues`. */
  check(value: unknown, path: Path, issues: Issue[]): T | undefined;
  /** Named sub-schemas go into `defs` and are referenced. */
  json(defs: Map<string, JsonSchema>): JsonSchema;
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'map';
  return typeof value;
}

function wrongType(expected: string, value: unknown, path: Path, issues: Issue[]): undefined {
  issues.push({ path, at: 'value', message: `expected ${expected}, got ${typeName(value)}` });
  return undefined;
}

export interface StringOptions {
  readonly description?: string;
  /** Returns what is wrong with the string, if anything. */
  readonly valid?: (text: string) => string | undefined;
  /** The JSON Schema approximation of `valid`. */
  readonly json?: JsonSchema;
}

export function string(options: StringOptions = {}): Schema<string> {
  return {
    check(value, path, issues) {
      if (typeof value === 'number' || typeof value === 'boolean') {
        issues.push({ path, at: 'value', message: `expected a string, got ${typeName(value)} (quote it: "${value}")` });
        return undefined;
      }
      if (typeof value !== 'string') return wrongType('a string', value, path, issues);
      const problem = options.valid?.(value);
      if (problem === undefined) return value;
      issues.push({ path, at: 'value', message: problem });
      return undefined;
    },
    json: () => ({ type: 'string', ...described(options.description), ...options.json }),
  };
}

export interface NumberOptions {
  readonly description?: string;
  readonly min?: number;
  readonly max?: number;
  /** Strictly greater than min. */
  readonly exclusiveMin?: boolean;
}

export function integer(options: NumberOptions = {}): Schema<number> {
  return numeric('integer', options);
}

export function number(options: NumberOptions = {}): Schema<number> {
  return numeric('number', options);
}

function numeric(kind: 'integer' | 'number', options: NumberOptions): Schema<number> {
  const { min, max, exclusiveMin = false } = options;
  return {
    check(value, path, issues) {
      if (
        typeof value !== 'number' ||
        !Number.isFinite(value) ||
        (kind === 'integer' && !Number.isSafeInteger(value))
      ) {
        return wrongType(kind === 'integer' ? 'an integer' : 'a number', value, path, issues);
      }
      const belowMin = min !== undefined && (exclusiveMin ? value <= min : value < min);
      if (belowMin || (max !== undefined && value > max)) {
        issues.push({ path, at: 'value', message: `must be ${rangeText(options)}, got ${value}` });
        return undefined;
      }
      return value;
    },
    json: () => ({
      type: kind,
      ...described(options.description),
      ...(min === undefined ? {} : exclusiveMin ? { exclusiveMinimum: min } : { minimum: min }),
      ...(max === undefined ? {} : { maximum: max }),
    }),
  };
}

function rangeText({ min, max, exclusiveMin }: NumberOptions): string {
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return exclusiveMin ? `greater than ${min}` : `at least ${min}`;
  return `at most ${max}`;
}

export function boolean(description?: string): Schema<boolean> {
  return {
    check: (value, path, issues) =>
      typeof value === 'boolean' ? value : wrongType('true or false', value, path, issues),
    json: () => ({ type: 'boolean', ...described(description) }),
  };
}

export function oneOf<const T extends string | boolean>(values: readonly T[], description?: string): Schema<T> {
  return {
    check(value, path, issues) {
      if ((values as readonly unknown[]).includes(value)) return value as T;
      const shown = typeof value === 'string' ? JSON.stringify(value) : typeName(value);
      const guess = typeof value === 'string' ? didYouMean(value, values.map(String)) : '';
      const expected = values.length === 1 ? String(values[0]) : `one of ${values.join(', ')}`;
      issues.push({ path, at: 'value', message: `must be ${expected}; got ${shown}${guess}` });
      return undefined;
    },
    json: () =>
      values.length === 1
        ? { const: values[0], ...described(description) }
        : { enum: values, ...described(description) },
  };
}

/** Any value at all (expected values in test cases). */
export function anything(description?: string): Schema<unknown> {
  return { check: (value) => value, json: () => described(description) };
}

export interface ListOptions<T> {
  readonly description?: string;
  readonly minItems?: number;
  /** Checks across items (duplicates and the like), run once every item is valid. */
  readonly refine?: Refinement<T[]>;
}

export function list<T>(item: Schema<T>, options: ListOptions<T> = {}): Schema<T[]> {
  const { minItems = 0 } = options;
  return {
    check(value, path, issues) {
      if (!Array.isArray(value)) return wrongType('a list', value, path, issues);
      if (value.length < minItems) {
        issues.push({ path, at: 'value', message: `must have at least ${minItems} item${minItems === 1 ? '' : 's'}` });
        return undefined;
      }
      const before = issues.length;
      const items = value.map((element, index) => item.check(element, [...path, index], issues));
      if (issues.length > before) return undefined;
      return refined(items as T[], options.refine, path, issues);
    },
    json: (defs) => ({
      type: 'array',
      ...described(options.description),
      items: item.json(defs),
      ...(minItems > 0 ? { minItems } : {}),
      ...options.refine?.json,
    }),
  };
}

export interface Refinement<T> {
  /** Records issues about a value whose parts are each valid. */
  check(value: T, path: Path, issues: Issue[]): void;
  /** The same rule in JSON Schema, where it can be said. */
  readonly json?: JsonSchema;
}

function refined<T>(value: T, refinement: Refinement<T> | undefined, path: Path, issues: Issue[]): T | undefined {
  if (refinement === undefined) return value;
  const before = issues.length;
  refinement.check(value, path, issues);
  return issues.length > before ? undefined : value;
}

export interface Field {
  readonly schema: Schema<unknown>;
  readonly required?: boolean;
  readonly default?: unknown;
}

export const required = (schema: Schema<unknown>): Field => ({ schema, required: true });
export const optional = (schema: Schema<unknown>, defaultValue?: unknown): Field => ({ schema, default: defaultValue });

export interface ObjectOptions<T> {
  readonly description?: string;
  /** Fields other than the known ones are kept unchecked (object metadata). */
  readonly open?: boolean;
  readonly refine?: Refinement<T>;
}

/** A map with known fields only; unknown fields are errors (with a "did you mean"). */
export function object<T>(fields: Readonly<Record<string, Field>>, options: ObjectOptions<T> = {}): Schema<T> {
  const known = Object.keys(fields);
  return {
    check(value, path, issues) {
      if (!isPlainMap(value)) return wrongType('a map', value, path, issues);
      const before = issues.length;
      for (const key of Object.keys(value)) {
        if (!options.open && !Object.hasOwn(fields, key)) {
          issues.push({ path: [...path, key], at: 'key', message: `unknown field${didYouMean(key, known)}` });
        }
      }
      const result: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(fields)) {
        const given = value[key];
        if (given === undefined) {
          if (field.required) issues.push({ path: [...path, key], at: 'parent', message: 'required field is missing' });
          else if (field.default !== undefined) result[key] = structuredClone(field.default);
          continue;
        }
        const checked = field.schema.check(given, [...path, key], issues);
        if (checked !== undefined) result[key] = checked;
      }
      if (issues.length > before) return undefined;
      return refined(result as T, options.refine, path, issues);
    },
    json(defs) {
      const properties: Record<string, JsonSchema> = {};
      for (const [key, field] of Object.entries(fields)) {
        const property = field.schema.json(defs);
        properties[key] = field.default === undefined ? property : { ...property, default: field.default };
      }
      const requiredKeys = known.filter((key) => fields[key]?.required);
      return {
        type: 'object',
        ...described(options.description),
        properties,
        ...(requiredKeys.length > 0 ? { required: requiredKeys } : {}),
        ...(options.open ? {} : { additionalProperties: false }),
        ...options.refine?.json,
      };
    },
  };
}

/** A map from free-form keys to values (matchLabels). */
export function record<T>(key: Schema<string>, item: Schema<T>, description?: string): Schema<Record<string, T>> {
  return {
    check(value, path, issues) {
      if (!isPlainMap(value)) return wrongType('a map', value, path, issues);
      const before = issues.length;
      const result: Record<string, T> = {};
      for (const [name, element] of Object.entries(value)) {
        const keyIssues: Issue[] = [];
        key.check(name, [...path, name], keyIssues);
        issues.push(...keyIssues.map((issue): Issue => ({ ...issue, at: 'key' })));
        const checked = item.check(element, [...path, name], issues);
        if (checked !== undefined) result[name] = checked;
      }
      return issues.length > before ? undefined : result;
    },
    json: (defs) => ({
      type: 'object',
      ...described(description),
      propertyNames: key.json(defs),
      additionalProperties: item.json(defs),
    }),
  };
}

/** A schema published once under `$defs` and referenced wherever it is used. */
export function named<T>(name: string, schema: Schema<T>): Schema<T> {
  return {
    check: (value, path, issues) => schema.check(value, path, issues),
    json(defs) {
      if (!defs.has(name)) {
        defs.set(name, {});
        defs.set(name, schema.json(defs));
      }
      return { $ref: `#/$defs/${name}` };
    },
  };
}

export function isPlainMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function described(description: string | undefined): JsonSchema {
  return description === undefined ? {} : { description };
}

/** ` (did you mean "x"?)` when one candidate is a likely typo of `word`, else empty. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.floor(word.length / 3) + 1);
  for (const candidate of candidates) {
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? '' : ` (did you mean "${best}"?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

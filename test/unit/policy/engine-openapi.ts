// A validator for the part of OpenAPI 3 that the Kubernetes core/v1 schema
// uses ($ref, allOf, oneOf, enum, type, properties, additionalProperties,
// required, items), strict about unknown fields as kubectl-validate and the
// API server's strict field validation are.

import { readFileSync } from 'node:fs';

type Schema = Record<string, any>;

export class OpenApiValidator {
  readonly #schemas: Record<string, Schema>;

  constructor(file: URL) {
    this.#schemas = JSON.parse(readFileSync(file, 'utf8')).components.schemas;
  }

  /** Problems with value against components.schemas[name], as "path: message". */
  validate(name: string, value: unknown): string[] {
    const problems: string[] = [];
    this.#check(this.#resolve({ $ref: `#/components/schemas/${name}` }), value, '', problems);
    return problems;
  }

  #resolve(schema: Schema): Schema {
    if (typeof schema.$ref !== 'string') return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const resolved = this.#schemas[name];
    if (!resolved) throw new Error(`unknown schema ${schema.$ref}`);
    return resolved;
  }

  #check(given: Schema, value: unknown, path: string, problems: string[]): void {
    const schema = this.#resolve(given);
    for (const part of schema.allOf ?? []) this.#check(part, value, path, problems);
    if (Array.isArray(schema.oneOf)) {
      const matching = schema.oneOf.filter((option: Schema) => {
        const optionProblems: string[] = [];
        this.#check(option, value, path, optionProblems);
        return optionProblems.length === 0;
      });
      if (matching.length === 0) problems.push(`${path}: matches none of its alternatives`);
    }
    if (Array.isArray(schema.enum) && !schema.enum.includes(value))
      problems.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`);
    const type = schema.type ?? (schema.properties ? 'object' : undefined);
    switch (type) {
      case 'object':
        this.#checkObject(schema, value, path, problems);
        break;
      case 'array':
        if (!Array.isArray(value)) problems.push(`${path}: expected an array`);
        else if (schema.items)
          value.forEach((item, index) => this.#check(schema.items, item, `${path}/${index}`, problems));
        break;
      case 'string':
        if (typeof value !== 'string') problems.push(`${path}: expected a string`);
        break;
      case 'integer':
        if (!Number.isInteger(value)) problems.push(`${path}: expected an integer`);
        break;
      case 'number':
        if (typeof value !== 'number') problems.push(`${path}: expected a number`);
        break;
      case 'boolean':
        if (typeof value !== 'boolean') problems.push(`${path}: expected a boolean`);
        break;
    }
  }

  #checkObject(schema: Schema, value: unknown, path: string, problems: string[]): void {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${path}: expected an object`);
      return;
    }
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (record[key] === undefined) problems.push(`${path}/${key}: required`);
    for (const [key, member] of Object.entries(record)) {
      const property = schema.properties?.[key];
      // null is how JSON says "not set" for an optional field.
      if (member === null && !(schema.required ?? []).includes(key)) continue;
      if (property) this.#check(property, member, `${path}/${key}`, problems);
      else if (typeof schema.additionalProperties === 'object')
        this.#check(schema.additionalProperties, member, `${path}/${key}`, problems);
      else if (
        schema.additionalProperties !== true &&
        !schema['x-kubernetes-preserve-unknown-fields'] &&
        schema.properties
      )
        problems.push(`${path}/${key}: unknown field`);
    }
  }
}

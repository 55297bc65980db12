// Checks that JSON Schema cannot state exactly (label syntax, "exactly one of", a value that must be
// among its sibling's), attached to a TypeBox schema under a symbol: JSON.stringify and the published
// schemas leave it out, and the loader (check.ts) runs it once the value's own parts are valid.

import type { Static, TSchema } from 'typebox';
import type { Issue, Path } from './issue.ts';

export type Refinement<T> = (value: T, path: Path, issues: Issue[]) => void;

export const refinement: unique symbol = Symbol('topogate.refinement');

export type Refined<T extends TSchema> = T & { readonly [refinement]: Refinement<never> };

export function refine<T extends TSchema>(schema: T, check: Refinement<Static<T>>): Refined<T> {
  return { ...schema, [refinement]: check as Refinement<never> };
}

/** A string schema whose exact rule is `problem` (its pattern is the JSON Schema approximation for editors). */
export function exact<T extends TSchema>(schema: T, problem: (text: string) => string | undefined): Refined<T> {
  return refine(schema, (text, path, issues) => {
    const message = problem(text as string);
    if (message !== undefined) issues.push({ path, at: 'value', message });
  });
}

// Writes RFC 6902 operations against a working copy of the document, so that
// each operation sees the parents earlier ones created: missing parents are
// created by one `add` of the nested value, arrays are appended to with `/-`.

import { isRecord } from '../kube/json.ts';
import type { PatchOperation } from '../kube/types.ts';

export type Path = readonly (string | number)[];

export class PatchWriter {
  readonly operations: PatchOperation[] = [];
  readonly #document: Record<string, unknown>;

  constructor(document: object) {
    this.#document = structuredClone(document) as Record<string, unknown>;
  }

  /** The value at path in the working copy, or undefined. */
  get(path: Path): unknown {
    let node: unknown = this.#document;
    for (const segment of path) node = holds(node, segment) ? (node as Record<string | number, unknown>)[segment] : undefined;
    return node;
  }

  /** Sets path to value (add replaces an existing member), creating what is missing above it. */
  set(path: Path, value: unknown): void {
    let parent: Record<string | number, unknown> = this.#document;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const child = parent[path[depth]!];
      if (!holds(child, path[depth + 1]!)) {
        this.#add(parent, path.slice(0, depth + 1), nest(path.slice(depth + 1), value));
        return;
      }
      parent = child as Record<string | number, unknown>;
    }
    this.#add(parent, path, value);
  }

  /** Appends items to the array at path, creating it (and its parents) when missing. */
  append(path: Path, items: readonly unknown[]): void {
    if (items.length === 0) return;
    const array = this.get(path);
    if (!Array.isArray(array)) {
      this.set(path, [...items]);
      return;
    }
    for (const item of items) {
      const value = structuredClone(item);
      this.operations.push({ op: 'add', path: `${pointer(path)}/-`, value });
      array.push(structuredClone(item));
    }
  }

  #add(parent: Record<string | number, unknown>, path: Path, value: unknown): void {
    this.operations.push({ op: 'add', path: pointer(path), value: structuredClone(value) });
    parent[path[path.length - 1]!] = structuredClone(value);
  }
}

export function pointer(path: Path): string {
  return path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function nest(path: Path, value: unknown): unknown {
  let nested = value;
  for (let depth = path.length - 1; depth >= 0; depth--) nested = { [path[depth]!]: nested };
  return nested;
}

/** An object member needs an object, an array index an array: anything else is replaced, never walked into. */
function holds(container: unknown, segment: string | number): boolean {
  return typeof segment === 'number' ? Array.isArray(container) : isRecord(container);
}

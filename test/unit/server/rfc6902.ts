// A strict RFC 6902 JSON Patch, written for the tests from the RFC alone, so
// that topogate's patches are checked by code that shares nothing with the
// code that made them (fast-json-patch included). Every error the RFC names
// throws: a missing parent, an index past the end, removing or replacing
// what is not there, a failed test.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Operation {
  readonly op: string;
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

export function applyPatch(document: unknown, patch: readonly Operation[]): unknown {
  let root = structuredClone(document) as Json;
  for (const [index, operation] of patch.entries()) {
    try {
      root = applyOne(root, operation);
    } catch (error) {
      throw new Error(`operation ${index} (${operation.op} ${operation.path}): ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return root;
}

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`"${pointer}" is not a JSON Pointer`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw new Error(`bad escape in "${token}"`);
      return token.replaceAll('~1', '/').replaceAll('~0', '~');
    });
}

function arrayIndex(array: Json[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`"${token}" is not an array index`);
  const index = Number(token);
  if (index > array.length || (!forAdd && index === array.length))
    throw new Error(`index ${index} is out of bounds (length ${array.length})`);
  return index;
}

function resolve(root: Json, path: string[]): Json {
  let at: Json = root;
  for (const token of path) {
    if (Array.isArray(at)) at = at[arrayIndex(at, token, false)] as Json;
    else if (at !== null && typeof at === 'object' && Object.hasOwn(at, token)) at = at[token] as Json;
    else throw new Error(`"${token}" does not exist`);
  }
  return at;
}

function applyOne(root: Json, operation: Operation): Json {
  const path = tokens(operation.path);
  switch (operation.op) {
    case 'add':
      return add(root, path, structuredClone(required(operation)) as Json);
    case 'remove':
      return remove(root, path);
    case 'replace':
      return add(remove(root, path), path, structuredClone(required(operation)) as Json);
    case 'test':
      if (!deepEqual(resolve(root, path), required(operation) as Json)) throw new Error('test failed');
      return root;
    case 'move':
    case 'copy': {
      const from = tokens(operation.from ?? '');
      const value = structuredClone(resolve(root, from));
      return add(operation.op === 'move' ? remove(root, from) : root, path, value);
    }
    default:
      throw new Error(`unknown op "${operation.op}"`);
  }
}

function required(operation: Operation): unknown {
  if (!('value' in operation)) throw new Error('no value');
  return operation.value;
}

function add(root: Json, path: string[], value: Json): Json {
  if (path.length === 0) return value;
  const parent = resolve(root, path.slice(0, -1));
  const last = path[path.length - 1] as string;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, value);
  else if (parent !== null && typeof parent === 'object')
    Object.defineProperty(parent, last, { value, enumerable: true, writable: true, configurable: true });
  else throw new Error('the parent is not a container');
  return root;
}

function remove(root: Json, path: string[]): Json {
  if (path.length === 0) throw new Error('cannot remove the whole document');
  const parent = resolve(root, path.slice(0, -1));
  const last = path[path.length - 1] as string;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false), 1);
  else if (parent !== null && typeof parent === 'object' && Object.hasOwn(parent, last)) delete parent[last];
  else throw new Error(`"${last}" does not exist`);
  return root;
}

function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return (
    keysA.length === keysB.length &&
    keysA.every(
      (key) =>
        Object.hasOwn(b, key) &&
        deepEqual((a as Record<string, Json>)[key] as Json, (b as Record<string, Json>)[key] as Json),
    )
  );
}

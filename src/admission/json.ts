// JSON.parse for request bodies. V8 parses deep nesting without recursion and
// stores "__proto__" as a plain own key, so parsing itself is safe; what is
// not safe is handing such a value to code that walks it recursively or
// merges it key by key. This check bounds the depth for every later walk
// and refuses "__proto__", which no Kubernetes field or label key can be.

export type JsonResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/** Far beyond any Pod (about 15 levels, 20 with managedFields). */
export const maxJsonDepth = 128;

interface Frame {
  readonly value: object;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string;
}

export function parseJson(text: string, maxDepth: number = maxJsonDepth): JsonResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `the body is not JSON: ${(error as Error).message}` };
  }
  const problem = isObject(value) && hasProblem(value, 1, maxDepth) ? findProblem(value, maxDepth) : undefined;
  return problem === undefined ? { ok: true, value } : { ok: false, message: problem };
}

// The walk that names where a problem is costs a third as much as JSON.parse
// itself; this one, a few times cheaper, only says whether there is one. It
// steps into objects only: most values of a Pod are strings, and a call for
// each of them made the walk 5x slower. Recursive, but never more than
// maxDepth + 1 calls deep. The object test is written out: under serve V8 left isObject() as a call, about a
// third of the walk's time in a profile of every Pod new (docs/benchmarks.md, "Sixteenth look").
function hasProblem(value: object, depth: number, maxDepth: number): boolean {
  if (depth > maxDepth) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item === 'object' && item !== null && hasProblem(item, depth + 1, maxDepth)) return true;
    }
    return false;
  }
  for (const key in value) {
    if (key === '__proto__') return true;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null && hasProblem(item, depth + 1, maxDepth)) return true;
  }
  return false;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function findProblem(root: unknown, maxDepth: number): string | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  const stack: Frame[] = [{ value: root, depth: 1, parent: undefined, key: '' }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > maxDepth) return `the body nests deeper than ${maxDepth} levels (at ${pointer(frame)})`;
    if (Array.isArray(frame.value)) {
      frame.value.forEach((item: unknown, index) => {
        if (typeof item === 'object' && item !== null)
          stack.push({ value: item, depth: frame.depth + 1, parent: frame, key: String(index) });
      });
      continue;
    }
    for (const key of Object.keys(frame.value)) {
      if (key === '__proto__')
        return `the key "__proto__" is not allowed (at ${pointer({ value: frame.value, depth: frame.depth + 1, parent: frame, key })})`;
      const item: unknown = (frame.value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null)
        stack.push({ value: item, depth: frame.depth + 1, parent: frame, key });
    }
  }
  return undefined;
}

/** The JSON Pointer (RFC 6901) of a frame, for messages. */
function pointer(frame: Frame): string {
  const keys: string[] = [];
  for (let at: Frame | undefined = frame; at?.parent !== undefined; at = at.parent)
    keys.push(at.key.replaceAll('~', '~0').replaceAll('/', '~1'));
  return keys.length === 0 ? '/' : `/${keys.reverse().join('/')}`;
}

// How long each function in a TypeScript source is, read with the compiler's parser (a regex cannot tell where
// a function ends). A function's lines run from its first token to its last, nested functions included: an
// outer function that holds long inner ones is long.

import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';

export interface FunctionLength {
  /**
   * The function's name, or the name it is bound to (variable, property, method); otherwise `(anonymous)` after
   * the name of the function around it, as `outer/(anonymous)`.
   */
  readonly name: string;
  /** 1-based line of its first token. */
  readonly line: number;
  readonly lines: number;
}

const nameOf = (node: ts.Node, outer: string | undefined): string => {
  if ((ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node)) && node.name) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if ((ts.isMethodDeclaration(node) || ts.isAccessor(node)) && !ts.isComputedPropertyName(node.name)) {
    return node.name.text;
  }
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name)) {
    return parent.name.text;
  }
  return outer === undefined ? '(anonymous)' : `${outer}/(anonymous)`;
};

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isAccessor(node);

/** Every function with a body in `text`, in source order. */
export const functionLengths = (fileName: string, text: string): FunctionLength[] => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node, outer: string | undefined): void => {
    let name = outer;
    if (isFunction(node) && node.body !== undefined) {
      name = nameOf(node, outer);
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name, line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(source, undefined);
  return found;
};

export interface LongFunction extends FunctionLength {
  /** `src/…`: the path below the folder's parent. */
  readonly path: string;
}

/** Every function in the `.ts` files below `folder` (a `file:` URL ending in `/`) longer than `limit` lines. */
export const longFunctions = (folder: URL, limit: number): LongFunction[] => {
  const prefix = folder.pathname.split('/').at(-2)!;
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .sort()
    .flatMap((path) =>
      functionLengths(path, readFileSync(new URL(path, folder), 'utf8'))
        .filter((fn) => fn.lines > limit)
        .map((fn) => ({ ...fn, path: `${prefix}/${path}` })),
    );
};

// Kubernetes objects from files and folders: what `--topology PATH…` reads.
// Accepts what kubectl writes: several YAML documents a file, JSON, and
// lists (`kind: List`, or a typed list such as NodeList whose items carry
// no kind of their own).

import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { documentValue, parseKubectlYaml } from '../../kube/yaml.ts';
import type { KubeObject } from '../../kube/types.ts';
import { isRecord } from '../../kube/json.ts';

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Every object in the paths, in path order then file order; folders are read recursively, sorted by name, hidden entries skipped. */
export async function loadTopologyPaths(paths: readonly string[]): Promise<KubeObject[]> {
  const objects: KubeObject[] = [];
  for (const path of paths) {
    // One push per object: spreading a 200,000-item list into push() overflows the stack.
    for (const file of await filesOf(path))
      for (const object of parseObjects(await readFile(file, 'utf8'), file)) objects.push(object);
  }
  return objects;
}

/** The objects in one file's text; errors name the file, and line:col for YAML. */
export function parseObjects(text: string, file: string): KubeObject[] {
  const documents = extname(file) === '.json' ? [parseJson(text, file)] : parseYaml(text, file);
  return documents.flatMap((document, index) => {
    if (document === null || document === undefined) return [];
    if (!isRecord(document)) throw new Error(`${file}: document ${index + 1} is not an object`);
    return flatten(document, file);
  });
}

async function filesOf(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw new Error(
      `${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : String(error)}`,
      { cause: error },
    );
  }
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  const files: string[] = [];
  for (const entry of entries) {
    const child = join(path, entry.name);
    // Hidden entries are editors' and tools' (.#lock files, .git), not objects.
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) files.push(...(await filesOf(child)));
    else if (EXTENSIONS.has(extname(entry.name))) files.push(child);
  }
  return files;
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  }
}

function parseYaml(text: string, file: string): unknown[] {
  return parseKubectlYaml(text).map((document) => {
    const error = document.errors[0];
    if (error) {
      const at = error.linePos?.[0];
      const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new Error(`${file}:${at ? `${at.line}:${at.col}` : '1:1'}: ${message}`);
    }
    try {
      return documentValue(document);
    } catch (cause) {
      // Aliases that expand without bound (a "billion laughs" file) are refused here.
      throw new Error(`${file}: ${(cause as Error).message}`, { cause });
    }
  });
}

function flatten(object: Record<string, unknown>, file: string): KubeObject[] {
  const kind = typeof object.kind === 'string' ? object.kind : undefined;
  if (!kind?.endsWith('List') || !Array.isArray(object.items)) return [object];
  // A typed list (NodeList) leaves kind and apiVersion off its items.
  const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
  return object.items.flatMap((item, index) => {
    if (!isRecord(item)) throw new Error(`${file}: ${kind} item ${index + 1} is not an object`);
    const typed = itemKind === undefined ? item : { apiVersion: object.apiVersion, kind: itemKind, ...item };
    return flatten(typed, file);
  });
}

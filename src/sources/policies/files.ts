// Policy files and directories read from disk (shell), each parsed by
// policy/parse.ts; names must be unique across all of them.

import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PolicyError } from '../../policy/errors.ts';
import { MAX_POLICIES, parsePolicies, uniqueNames, type PolicySet } from '../../policy/parse.ts';
import type { SchedulingPolicy } from '../../policy/types.ts';

/** Files larger than this are refused rather than parsed. */
export const MAX_POLICY_FILE_BYTES = 4 * 1024 * 1024;
const POLICY_FILE = /\.(ya?ml|json)$/;
/** A last line `---`, followed by nothing but blank lines. */
const ENDS_AT_DOCUMENT_START = /(?:^|\n)---[ \t]*(?:\r?\n[ \t]*)*$/;

export interface LoadedPolicies extends PolicySet {
  readonly files: string[];
  readonly empty: string[];
  readonly cut: string[];
}

/**
 * Reads files and directories (a directory's own .yaml, .yml and .json files,
 * not its subdirectories nor hidden files). Names must be unique across all.
 * Relative paths are read from `cwd` and reported as given. `empty`: the files
 * that hold no policy and no error (blank, or comments only). `cut`: the files
 * that end at a `---` with nothing after it, as a rewrite caught between two
 * documents does.
 */
export async function loadPolicies(paths: readonly string[], options: { cwd?: string } = {}): Promise<LoadedPolicies> {
  const at = (path: string) => resolve(options.cwd ?? '.', path);
  const errors: PolicyError[] = [];
  const files: string[] = [];
  for (const path of paths) {
    try {
      files.push(...((await stat(at(path))).isDirectory() ? await policyFilesIn(path, at) : [path]));
    } catch (error) {
      errors.push(fileError(path, error));
    }
  }
  const policies: SchedulingPolicy[] = [];
  const empty: string[] = [];
  const cut: string[] = [];
  for (const file of new Set(files)) {
    try {
      if ((await stat(at(file))).size > MAX_POLICY_FILE_BYTES)
        throw new Error(`larger than ${MAX_POLICY_FILE_BYTES} bytes`);
      const text = await readFile(at(file), 'utf8');
      const parsed = parsePolicies(text, file);
      if (parsed.policies.length === 0 && parsed.errors.length === 0) empty.push(file);
      else if (ENDS_AT_DOCUMENT_START.test(text)) cut.push(file);
      policies.push(...parsed.policies);
      errors.push(...parsed.errors);
      if (policies.length > MAX_POLICIES) {
        errors.push({
          ...(policies[MAX_POLICIES]!.source ?? { file, line: 0, col: 0 }),
          message: `more than ${MAX_POLICIES} policies in all the files: the rest is not read`,
        });
        break;
      }
    } catch (error) {
      errors.push(fileError(file, error));
    }
  }
  const unique = uniqueNames(policies);
  return { policies: unique.policies, errors: [...errors, ...unique.errors], files: [...new Set(files)], empty, cut };
}

async function policyFilesIn(dir: string, at: (path: string) => string): Promise<string[]> {
  const names = (await readdir(at(dir))).filter((name) => POLICY_FILE.test(name) && !name.startsWith('.')).sort();
  const files: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    if ((await stat(at(file)).catch(() => undefined))?.isFile()) files.push(file);
  }
  return files;
}

function fileError(file: string, error: unknown): PolicyError {
  const { code, message } = error as NodeJS.ErrnoException;
  const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : message;
  return { file, line: 0, col: 0, message: `cannot read: ${reason}` };
}

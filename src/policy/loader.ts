// YAML (or JSON) text → validated, defaulted SchedulingPolicies, with every
// problem located at its node as `file:line:col: message`. Pure but for
// loadPolicies, which reads the files it is given.

import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PolicyError } from './errors.ts';
import { formatLocation } from './errors.ts';
import type { Issue, Path } from './schema/checks.ts';
import { describeIssue, locatedErrors, readYamlDocuments } from './schema/located.ts';
import { didYouMean, isPlainMap } from './schema/checks.ts';
import type { PolicyDocument } from './schema/policy.ts';
import { API_VERSION, KIND, policyDocument } from './schema/policy.ts';
import type { SchedulingPolicy, SourceLocation } from './types.ts';

export interface PolicySet {
  readonly policies: SchedulingPolicy[];
  readonly errors: PolicyError[];
}

/** Files larger than this are refused rather than parsed. */
export const MAX_POLICY_FILE_BYTES = 4 * 1024 * 1024;
const POLICY_FILE = /\.(ya?ml|json)$/;
const LIST_KINDS = new Set(['List', 'SchedulingPolicyList']);

/** Every document of a YAML stream; a `kind: List` (or SchedulingPolicyList) contributes its items. */
export function parsePolicies(text: string, file: string): PolicySet {
  const { documents, errors } = readYamlDocuments(text, file);
  const policies: SchedulingPolicy[] = [];
  for (const { value, locate } of documents) {
    for (const [path, object] of documentsIn(value)) {
      const checked = check(object, path);
      if ('issues' in checked) errors.push(...locatedErrors(checked.issues, locate));
      else policies.push(toPolicy(checked.document, locate([...path, 'metadata', 'name'])));
    }
  }
  return { policies, errors };
}

/** A SchedulingPolicy object from the API server (the CRD source); errors name `origin` and the field. */
export function policyFromObject(
  object: unknown,
  origin: string,
): { policy?: SchedulingPolicy; errors: PolicyError[] } {
  const checked = check(object, []);
  if ('issues' in checked)
    return {
      errors: checked.issues.map((issue) => ({ file: origin, line: 0, col: 0, message: describeIssue(issue) })),
    };
  const policy = toPolicy(checked.document, { file: origin, line: 0, col: 0 });
  const generation = (object as { metadata?: { generation?: unknown } }).metadata?.generation;
  return { policy: typeof generation === 'number' ? { ...policy, generation } : policy, errors: [] };
}

/**
 * Reads files and directories (a directory's own .yaml, .yml and .json files,
 * not its subdirectories nor hidden files). Names must be unique across all.
 * Relative paths are read from `cwd` and reported as given.
 */
export async function loadPolicies(
  paths: readonly string[],
  options: { cwd?: string } = {},
): Promise<PolicySet & { files: string[] }> {
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
  for (const file of new Set(files)) {
    try {
      if ((await stat(at(file))).size > MAX_POLICY_FILE_BYTES)
        throw new Error(`larger than ${MAX_POLICY_FILE_BYTES} bytes`);
      const parsed = parsePolicies(await readFile(at(file), 'utf8'), file);
      policies.push(...parsed.policies);
      errors.push(...parsed.errors);
    } catch (error) {
      errors.push(fileError(file, error));
    }
  }
  const unique = uniqueNames(policies);
  return { policies: unique.policies, errors: [...errors, ...unique.errors], files: [...new Set(files)] };
}

/** Keeps the first policy of each name; each later one is an error (for merging several sources). */
export function uniqueNames(policies: readonly SchedulingPolicy[]): PolicySet {
  const seen = new Map<string, SchedulingPolicy>();
  const errors: PolicyError[] = [];
  for (const policy of policies) {
    const first = seen.get(policy.name);
    if (first === undefined) {
      seen.set(policy.name, policy);
      continue;
    }
    const where = first.source ? ` (first defined at ${formatLocation(first.source)})` : '';
    errors.push({
      ...(policy.source ?? { file: '', line: 0, col: 0 }),
      message: `metadata.name: duplicate policy name ${JSON.stringify(policy.name)}${where}`,
    });
  }
  return { policies: [...seen.values()], errors };
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

function* documentsIn(value: unknown): Generator<[Path, unknown]> {
  if (isPlainMap(value) && typeof value.kind === 'string' && LIST_KINDS.has(value.kind) && Array.isArray(value.items)) {
    for (const [index, item] of value.items.entries()) yield [['items', index], item];
  } else {
    yield [[], value];
  }
}

function check(value: unknown, path: Path): { document: PolicyDocument } | { issues: Issue[] } {
  if (isPlainMap(value) && typeof value.kind === 'string' && value.kind !== KIND) {
    const message = `${value.kind} is not a ${KIND}${didYouMean(value.kind, [KIND])}: policy files hold only ${API_VERSION} ${KIND} documents`;
    return { issues: [{ path: [...path, 'kind'], at: 'value', message }] };
  }
  const issues: Issue[] = [];
  const document = policyDocument.check(value, path, issues);
  return document === undefined ? { issues } : { document };
}

function toPolicy(document: PolicyDocument, source: SourceLocation): SchedulingPolicy {
  const { priority, match, onUnsatisfiable, enforcement, rollout, rules } = document.spec;
  return {
    name: document.metadata.name,
    priority,
    ...(match ? { match } : {}),
    onUnsatisfiable,
    // Left out at their defaults, so that a policy without them is the policy it was.
    ...(enforcement === 'Audit' && { enforcement }),
    ...(rollout.percent < 100 && { rollout }),
    rules,
    source,
  };
}

// `topogate lint`: checks policy files the way the webhook loads them.
// Problems go to stdout, one `file:line:col: message` a line (as eslint's
// unix format and kubeconform do), so editors and CI can parse them; the
// summary goes to stderr.

import { formatPolicyError, type PolicyError } from '../policy/errors.ts';
import { loadPolicies } from '../sources/policies/files.ts';
import type { Command, CommandIO } from './command.ts';
import { EXIT, parseFlags } from './command.ts';

const usage = `Usage: topogate lint DIR|FILE…

Checks SchedulingPolicy files as the webhook loads them: YAML syntax, every
field, type, enum value and default, label and name syntax, globs, and that
policy names are unique across all the files given.

A DIR is read for its .yaml, .yml and .json files (not its subdirectories,
not hidden files); a FILE is read whatever its name.

Prints each problem on stdout as file:line:col: message, and a summary on
stderr. Exit 0 when clean, 1 on any problem, 2 on bad usage.
`;

export const lint: Command = {
  summary: 'checks policy files; problems as file:line:col: message',
  usage,
  async run(args, io) {
    const paths = pathArguments('lint', args, io, usage);
    if (paths === undefined) return EXIT.usage;
    const { policies, errors, files, empty } = await loadPolicies(paths, { cwd: io.cwd });
    // Not a problem, but the webhook treats a file that becomes empty as caught mid-rewrite (docs/policy.md).
    for (const file of empty)
      io.stderr.write(`${file}: warning: holds no policy; to remove a file's policies, delete it\n`);
    const problems: PolicyError[] = [...errors];
    if (files.length === 0 && errors.length === 0)
      problems.push({ file: paths.join(' '), line: 0, col: 0, message: 'no policy files (.yaml, .yml, .json) found' });
    for (const problem of problems) io.stdout.write(`${formatPolicyError(problem)}\n`);
    const counted = `${plural(policies.length, 'policy', 'policies')} in ${plural(files.length, 'file', 'files')}`;
    if (problems.length === 0) {
      io.stderr.write(`${counted}: no problems\n`);
      return EXIT.ok;
    }
    io.stderr.write(`${plural(problems.length, 'problem', 'problems')}; ${counted} valid\n`);
    return EXIT.failed;
  },
};

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** The positional paths of a command that takes one or more and no flags; undefined once usage is printed. */
export function pathArguments(
  command: string,
  args: readonly string[],
  io: CommandIO,
  usage: string,
): string[] | undefined {
  const parsed = parseFlags(command, usage, io, { args: [...args], options: {}, allowPositionals: true });
  if (parsed === undefined) return undefined;
  const paths = parsed.positionals;
  if (paths.length === 0) io.stderr.write(`topogate ${command}: give at least one directory or file\n\n${usage}`);
  return paths.length === 0 ? undefined : paths;
}

// Runs a command in-process and captures what it writes.

import { PassThrough } from 'node:stream';
import type { Command } from '../../../src/cli/command.ts';

export async function runCommand(
  command: Command,
  cwd: string,
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const captured = { stdout: [] as string[], stderr: [] as string[] };
  const stdout = new PassThrough().on('data', (chunk) => captured.stdout.push(String(chunk)));
  const stderr = new PassThrough().on('data', (chunk) => captured.stderr.push(String(chunk)));
  const code = await command.run(args, { stdout, stderr, stdin: new PassThrough(), cwd });
  return { code, stdout: captured.stdout.join(''), stderr: captured.stderr.join('') };
}

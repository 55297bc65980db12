// Runs a topogate command in-process, as the binary would, and collects what it printed.

import { PassThrough } from 'node:stream';
import { main } from '../../../src/cli/main.ts';

export async function runCli(
  argv: readonly string[],
  cwd = process.cwd(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await main([...argv], { stdout, stderr, stdin: new PassThrough(), cwd });
  return { code, stdout: out, stderr: err };
}

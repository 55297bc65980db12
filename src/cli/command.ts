// The shape every subcommand module has. Commands write through `io` rather
// than process.stdout so tests can run them in-process.

import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CommandIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly cwd: string;
}

export interface Command {
  /** One line, for `topogate --help`. */
  readonly summary: string;
  /** The full `--help` text. */
  readonly usage: string;
  /** Resolves to the exit code (long-running commands resolve when they stop). */
  run(args: readonly string[], io: CommandIO): Promise<number>;
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** node:util parseArgs for a command; on bad flags it prints the error and usage, and answers undefined (exit EXIT.usage). */
export function parseFlags<T extends ParseArgsConfig>(
  command: string,
  usage: string,
  io: CommandIO,
  config: T,
): ReturnType<typeof parseArgs<T>> | undefined {
  try {
    return parseArgs(config);
  } catch (error) {
    io.stderr.write(`topogate ${command}: ${(error as Error).message}\n\n${usage}`);
    return undefined;
  }
}

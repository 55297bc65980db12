// `topogate <command>`: loads only the command it runs, so that `lint` does
// not pay for the HTTP server and `serve` does not pay for the test runner.

import type { Command, CommandIO } from './command.ts';
import { EXIT } from './command.ts';

const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.ts')).serve,
  mutate: async () => (await import('./mutate.ts')).mutate,
  explain: async () => (await import('./explain-pod.ts')).explain,
  lint: async () => (await import('./lint.ts')).lint,
  test: async () => (await import('./test.ts')).test,
  certs: async () => (await import('./certs.ts')).certs,
  manifests: async () => (await import('./manifests.ts')).manifests,
  snapshot: async () => (await import('./snapshot.ts')).snapshot,
  controlplane: async () => (await import('./controlplane.ts')).controlplane,
  version: async () => (await import('./version.ts')).version,
  audit: async () => (await import('./audit.ts')).audit,
  probe: async () => (await import('./probe.ts')).probe,
  discover: async () => (await import('./discover.ts')).discoverCommand,
};

const processIO: CommandIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  cwd: process.cwd(),
};

export async function main(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const [given, ...args] = argv;
  const name = given === '--version' ? 'version' : given;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(await overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const load = commands[name];
  if (!load) {
    io.stderr.write(`topogate: unknown command "${name}"\n\n${await overview()}`);
    return EXIT.usage;
  }
  const command = await load();
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`);
    return EXIT.ok;
  }
  return command.run(args, io);
}

async function overview(): Promise<string> {
  const lines = ['Usage: topogate <command> [flags]', '', 'Commands:'];
  for (const [name, load] of Object.entries(commands)) lines.push(`  ${name.padEnd(10)} ${(await load()).summary}`);
  lines.push('', 'Run `topogate <command> --help` for the flags of a command.', '');
  return lines.join('\n');
}

// `topogate version`: the package's own version (package.json is the one
// source of it) and the Node that runs topogate, for bug reports.

import { readFile } from 'node:fs/promises';
import type { Command } from './command.ts';
import { EXIT } from './command.ts';

const usage = `Usage: topogate version   (or topogate --version)

Prints "topogate <semver>" and, on a second line, the version of the Node.js
runtime that runs it. Exit 0.
`;

export const version: Command = {
  summary: 'prints the version of topogate and of the Node.js that runs it',
  usage,
  async run(args, io) {
    if (args.length > 0) {
      io.stderr.write(`topogate version: takes no arguments\n\n${usage}`);
      return EXIT.usage;
    }
    const packageJson = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    io.stdout.write(`topogate ${packageJson.version}\nnode ${process.version}\n`);
    return EXIT.ok;
  },
};

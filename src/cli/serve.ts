// `topogate serve`: the webhook with its policies, topology and certificates.
// With no flags it runs the embedded default from the package (policies/,
// examples/cluster/, certs/ beside this source, whatever the cwd), making a
// certificate on first start, so that `npm start` works on a fresh clone.
// The parts live in serve/: flags/ (one file per concern), start.ts (start-up
// order), components.ts (background parts started and stopped with serve).

import pino from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Command } from './command.ts';
import { EXIT } from './command.ts';
import { parseServeArgs, usage } from './serve/args.ts';
import { untilSignal } from './serve/signals.ts';
import { startTopogate, type RunningTopogate } from './serve/start.ts';

export { parseServeArgs, type ParsedServeArgs } from './serve/args.ts';
export type { ServeConfig } from './serve/config.ts';
export { startTopogate, type RunningTopogate } from './serve/start.ts';

export const serve: Command = {
  summary: 'runs the webhook over HTTPS (the embedded demo by default)',
  usage,
  async run(args, io) {
    const parsed = parseServeArgs(args, io.cwd, process.env);
    if (!parsed.ok) {
      io.stderr.write(`topogate serve: ${parsed.message}\n\n${usage}`);
      return EXIT.usage;
    }
    const log = pino({ level: parsed.config.logLevel }, io.stdout);
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    let running: RunningTopogate;
    try {
      running = await startTopogate(parsed.config, { log, registry });
    } catch (error) {
      log.fatal({ err: error }, 'topogate could not start');
      io.stderr.write(`topogate serve: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    return untilSignal(running, log, io, parsed.config.shutdownGraceMs);
  },
};

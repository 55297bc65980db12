// serve's life as a process: SIGTERM or SIGINT stop it gracefully, SIGHUP re-reads the policies.

import type { Logger } from 'pino';
import { EXIT, type CommandIO } from '../command.ts';
import type { RunningTopogate } from './start.ts';

export function untilSignal(running: RunningTopogate, log: Logger, io: CommandIO): Promise<number> {
  return new Promise((done) => {
    const reload = () => void running.reload();
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop).off('SIGINT', stop).off('SIGHUP', reload);
      log.info({ signal }, 'shutting down: finishing in-flight requests');
      running.stop().then(
        () => done(EXIT.ok),
        (error: unknown) => {
          io.stderr.write(`topogate serve: shutdown failed: ${(error as Error).message}\n`);
          done(EXIT.failed);
        },
      );
    };
    process.once('SIGTERM', stop).once('SIGINT', stop).on('SIGHUP', reload);
  });
}

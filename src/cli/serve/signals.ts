// serve's life as a process: SIGTERM or SIGINT stop it gracefully, SIGHUP re-reads the policies.
// A stop always ends the process: the webhook cuts what is left at its grace deadline, and should anything
// else hold the process (a watch that will not close) it exits anyway shortly after.

import type { Logger } from 'pino';
import { EXIT, type CommandIO } from '../command.ts';
import type { RunningTopogate } from './start.ts';

/** How long after the webhook's grace the watches and controllers may take to stop. */
const stopMarginMs = 5_000;
/** After a stop, how long a handle left open may keep the process before it exits anyway. */
const lingerAfterStopMs = 1_000;

export function untilSignal(
  running: RunningTopogate,
  log: Logger,
  io: CommandIO,
  shutdownGraceMs: number,
): Promise<number> {
  return new Promise((done) => {
    const reload = () => void running.reload();
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop).off('SIGINT', stop).off('SIGHUP', reload);
      log.info({ signal }, 'shutting down: finishing in-flight requests');
      const deadline = shutdownGraceMs + stopMarginMs;
      const overdue = setTimeout(() => {
        log.error({ ms: deadline }, 'shutdown did not finish in time; exiting anyway');
        process.exit(EXIT.failed);
      }, deadline).unref();
      const finish = (code: number) => {
        clearTimeout(overdue);
        done(code);
        // The process ends by itself once nothing holds it; this, unref'd, only ends it if something still does.
        setTimeout(() => process.exit(code), lingerAfterStopMs).unref();
      };
      running.stop().then(
        () => finish(EXIT.ok),
        (error: unknown) => {
          io.stderr.write(`topogate serve: shutdown failed: ${(error as Error).message}\n`);
          finish(EXIT.failed);
        },
      );
    };
    process.once('SIGTERM', stop).once('SIGINT', stop).on('SIGHUP', reload);
  });
}

// Keeps the server's certificate in step with --cert-dir. Kubernetes updates
// a mounted Secret by swapping a symlinked directory, and tools rewrite files
// one at a time, so a change is read after the directory settles, and a pair
// that does not parse or match is ignored until it does. Connections already
// open keep the context they were made with: rotation fails no request.

import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { expiresAt, keyPairProblem, readKeyPair, type KeyPair } from './tls.ts';

export interface CertificateWatchOptions {
  readonly dir: string;
  readonly initial: KeyPair;
  readonly apply: (pair: KeyPair) => void;
  readonly log: Logger;
  readonly registry: Registry;
  /** Quiet time after the last change before reading (default 100 ms). */
  readonly settleMs?: number;
  /** Re-read this often too, for filesystems whose change events are unreliable (default 60 s). */
  readonly recheckMs?: number;
}

export interface CertificateWatch {
  stop(): void;
}

export function watchCertificates(options: CertificateWatchOptions): CertificateWatch {
  const { dir, log, settleMs = 100, recheckMs = 60_000 } = options;
  const metrics = certificateMetrics(options.registry);
  metrics.expiry.set(expiresAt(options.initial));
  const inUse = { pair: options.initial };
  let settling: NodeJS.Timeout | undefined;

  function schedule(): void {
    clearTimeout(settling);
    // A reload that throws must never take the server down: the pair in use keeps serving.
    settling = setTimeout(
      () =>
        void reload(options, metrics, inUse).catch((error: unknown) =>
          log.error({ err: error, dir }, 'certificate reload failed'),
        ),
      settleMs,
    );
  }

  const watcher = watchDirectory(dir, schedule, log);
  const recheck = setInterval(schedule, recheckMs).unref();

  return {
    stop() {
      watcher?.close();
      clearInterval(recheck);
      clearTimeout(settling);
    },
  };
}

type CertificateMetrics = ReturnType<typeof certificateMetrics>;

function certificateMetrics(registry: Registry) {
  return {
    reloads: new Counter({
      name: 'topogate_certificate_reloads_total',
      help: 'Serving certificate reloads from --cert-dir, by result (applied, rejected, unreadable).',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    expiry: new Gauge({
      name: 'topogate_certificate_expiry_timestamp_seconds',
      help: 'When the serving certificate in use expires (Unix time).',
      registers: [registry],
    }),
  };
}

/** The pair in --cert-dir applied and `inUse`, when it changed, parses and matches; else the one in use stays. */
async function reload(
  { dir, apply, log }: CertificateWatchOptions,
  { reloads, expiry }: CertificateMetrics,
  inUse: { pair: KeyPair },
): Promise<void> {
  let pair: KeyPair;
  try {
    pair = await readKeyPair(dir);
  } catch (error) {
    // Missing is a rotation caught mid-swap, which the next change event completes; anything else (permissions,
    // a directory in the file's place) lasts until someone fixes it, and the old certificate expires meanwhile.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      log.debug({ err: error, dir }, 'certificate files not there yet');
    else {
      reloads.inc({ result: 'unreadable' });
      log.warn({ err: error, dir }, 'cannot read the changed certificate; the one in use keeps serving');
    }
    return;
  }
  const current = inUse.pair;
  if (pair.cert === current.cert && pair.key === current.key) return;
  const problem = keyPairProblem(pair);
  if (problem !== undefined) {
    reloads.inc({ result: 'rejected' });
    log.warn({ dir, problem }, 'ignoring the changed certificate until tls.crt and tls.key parse and match');
    return;
  }
  apply(pair);
  inUse.pair = pair;
  reloads.inc({ result: 'applied' });
  expiry.set(expiresAt(pair));
  log.info({ dir, expiresAt: new Date(expiresAt(pair) * 1000).toISOString() }, 'serving certificate reloaded');
}

/** Watches the directory when it can; the periodic re-read covers the rest. */
function watchDirectory(dir: string, changed: () => void, log: Logger): FSWatcher | undefined {
  try {
    const watcher = watch(dir, changed);
    watcher.on('error', (error) =>
      log.warn({ err: error, dir }, 'watching the certificate directory failed; re-reading it periodically'),
    );
    return watcher;
  } catch (error) {
    log.warn({ err: error, dir }, 'cannot watch the certificate directory; re-reading it periodically');
    return undefined;
  }
}

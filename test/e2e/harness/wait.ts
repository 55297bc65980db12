// Polling until a component answers, with the reason of the last failure in
// the error so a slow start is told apart from a broken one.

import { request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  readonly what: string;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Checked on every round: a crashed process fails the wait at once. */
  readonly abortIf?: () => string | undefined;
}

export async function waitFor(check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let last: string;
  for (;;) {
    try {
      if (await check()) return;
      last = 'not ready';
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    const aborted = options.abortIf?.();
    if (aborted) throw new Error(`${options.what}: ${aborted}`);
    if (Date.now() > deadline) throw new Error(`${options.what}: not ready after ${options.timeoutMs} ms (${last})`);
    await sleep(options.intervalMs ?? 200);
  }
}

export interface TlsClient {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** headers: e.g. a bearer token, for a server that authenticates by TokenReview. */
export function httpsGet(
  url: string,
  tls: TlsClient,
  timeoutMs = 5_000,
  headers: Readonly<Record<string, string>> = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const options = { ca: tls.ca, cert: tls.cert, key: tls.key, timeout: timeoutMs, headers };
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

// A fake API server on loopback for the client plumbing's tests: each request to a path is answered by the next
// of its scripted answers (the last one repeats); a held answer streams nothing until the test ends.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { loopbackKubeConfig } from '../sources/loopback-kubeconfig.ts';

export type Answer =
  | { readonly status: number; readonly body?: unknown }
  /** A watch that stays open. */
  | 'hold'
  /** A watch stream: these events, then the end of the stream. */
  | { readonly events: readonly unknown[] };

export interface FakeApi {
  readonly config: KubeConfig;
  /** Requests seen, as `METHOD path[?watch]`. */
  readonly seen: string[];
  close(): Promise<void>;
}

/** `answers` by `METHOD path` with ` watch` appended for watch requests, e.g. `GET /api/v1/nodes watch`. */
export async function fakeApi(
  answers: Record<string, Answer[]>,
  onRequest?: (key: string, request: IncomingMessage) => void,
): Promise<FakeApi> {
  const seen: string[] = [];
  const served = new Map<string, number>();
  const server: Server = createServer((request, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const key = `${request.method} ${url.pathname}${url.searchParams.get('watch') === 'true' ? ' watch' : ''}`;
    seen.push(key);
    onRequest?.(key, request);
    const script = answers[key];
    if (script === undefined || script.length === 0) return void response.writeHead(404).end('{"code":404}');
    const index = served.get(key) ?? 0;
    served.set(key, index + 1);
    const answer = script[Math.min(index, script.length - 1)]!;
    if (answer === 'hold') return void response.writeHead(200, { 'content-type': 'application/json' }).write('');
    if ('events' in answer) {
      response.writeHead(200, { 'content-type': 'application/json' });
      return void response.end(answer.events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer.body ?? { kind: 'Status', code: answer.status, message: 'scripted' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    config: loopbackKubeConfig(server),
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `done` every 10 ms, for 15 s at most; fails with `what` and the requests seen. */
export async function until(done: () => boolean, what: string, seen: readonly string[] = []): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 15_000) throw new Error(`${what}; requests: ${seen.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// The topology view's own HTTP listener (serve --ui-listen): the page, its
// script and style, GET /api/snapshot (the data the page shows, as JSON) and
// GET /api/events (server-sent events: the same data again whenever it
// changes). Read-only, on its own port, never the webhook's; plain HTTP, so it
// belongs on localhost (kubectl port-forward) and nowhere else by default.

import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { eventStreams } from './events.ts';
import { assets, viewRoutes, type ViewRoutesOptions } from './routes.ts';

export interface ViewServerOptions extends ViewRoutesOptions {
  readonly port: number;
  /** Calls back when the data may have changed; returns an unsubscribe function. */
  readonly onChange: (listener: () => void) => () => void;
  /** Quiet time before a change is pushed: bursts of watch events become one update. */
  readonly settleMs?: number;
}

export interface ViewServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const { log, settleMs = 500 } = options;
  const files = new Map<string, string>();
  for (const [path, file] of Object.entries(assets))
    files.set(path, await readFile(new URL(`../static/${file}`, import.meta.url), 'utf8'));
  const streams = eventStreams(options.read, options.onChange, settleMs);
  const server = createServer(viewRoutes(options, files, streams));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  log.info({ url }, 'topology view serving');
  return {
    url,
    close() {
      streams.close();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

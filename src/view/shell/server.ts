// The topology view's own HTTP listener (serve --ui-listen): the page, its
// script and style, GET /api/snapshot (the data the page shows, as JSON) and
// GET /api/events (server-sent events: the same data again whenever it
// changes). Read-only, on its own port, never the webhook's; plain HTTP, so it
// belongs on localhost (kubectl port-forward) and nowhere else by default.

import { readFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ViewData } from '../data.ts';
import { hostAllowed } from '../hosts.ts';

export interface ViewServerOptions {
  readonly host: string;
  readonly port: number;
  /** The data as of now. */
  readonly read: () => ViewData;
  /**
   * Further GET /api/<name> routes, each answering JSON for its query parameters, or a string saying why there
   * is nothing (404): a node's record, a search, placements, a pair's RTT history, a decision's explain.
   */
  readonly queries?: Readonly<Record<string, (query: URLSearchParams) => unknown>>;
  /** Calls back when the data may have changed; returns an unsubscribe function. */
  readonly onChange: (listener: () => void) => () => void;
  readonly log: Logger;
  /** Quiet time before a change is pushed: bursts of watch events become one update. */
  readonly settleMs?: number;
}

export interface ViewServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Open event streams at most: each is a browser tab. */
const maxStreams = 32;
const heartbeatMs = 15_000;
const assets: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/app.js': 'app.js',
  '/dom.js': 'dom.js',
  '/map.js': 'map.js',
  '/placements.js': 'placements.js',
  '/trends.js': 'trends.js',
  '/style.css': 'style.css',
};
const types: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};
const securityHeaders = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const { log, settleMs = 500 } = options;
  const files = new Map<string, string>();
  for (const [path, file] of Object.entries(assets))
    files.set(path, await readFile(new URL(`../static/${file}`, import.meta.url), 'utf8'));
  const streams = new Set<ServerResponse>();
  let settling: NodeJS.Timeout | undefined;
  const push = () => {
    const event = `event: snapshot\ndata: ${JSON.stringify(options.read())}\n\n`;
    for (const stream of streams) stream.write(event);
  };
  const unsubscribe = options.onChange(() => {
    if (streams.size === 0 || settling) return;
    settling = setTimeout(() => {
      settling = undefined;
      push();
    }, settleMs);
  });
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': keep-alive\n\n');
  }, heartbeatMs).unref();

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://view');
    const path = url.pathname;
    if (!hostAllowed(request.headers.host, options.host)) {
      response.writeHead(421, { ...securityHeaders, 'Content-Type': 'text/plain' });
      return response.end(`the topology view answers only loopback names and ${options.host} in Host\n`);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...securityHeaders, Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
      return response.end('the topology view is read-only\n');
    }
    const asset = assets[path];
    if (asset !== undefined) {
      response.writeHead(200, { ...securityHeaders, 'Content-Type': types[asset.split('.').pop()!]! });
      return response.end(files.get(path));
    }
    if (path === '/api/snapshot') {
      response.writeHead(200, { ...securityHeaders, 'Content-Type': 'application/json' });
      return response.end(JSON.stringify(options.read()));
    }
    const query = path.startsWith('/api/') ? options.queries?.[path.slice(5)] : undefined;
    if (query !== undefined) return answerQuery(response, () => query(url.searchParams));
    if (path === '/api/events') {
      if (streams.size >= maxStreams) {
        response.writeHead(503, { ...securityHeaders, 'Content-Type': 'text/plain' });
        return response.end(`${maxStreams} views are open already\n`);
      }
      response.writeHead(200, { ...securityHeaders, 'Content-Type': 'text/event-stream' });
      response.write(`retry: 2000\nevent: snapshot\ndata: ${JSON.stringify(options.read())}\n\n`);
      streams.add(response);
      // The response's close, not the request's: a GET's request closes as soon as it has been read.
      response.once('close', () => streams.delete(response));
      return;
    }
    response.writeHead(404, { ...securityHeaders, 'Content-Type': 'text/plain' });
    response.end(
      `no ${path} here: the view serves /, /api/snapshot, /api/events and /api/{${Object.keys(options.queries ?? {}).join(',')}}\n`,
    );
  });
  function answerQuery(response: ServerResponse, answer: () => unknown): void {
    let found: unknown;
    try {
      found = answer();
    } catch (error) {
      log.warn({ err: error }, 'a view query failed');
      found = `failed: ${(error as Error).message}`;
    }
    const status = typeof found === 'string' ? 404 : 200;
    response.writeHead(status, { ...securityHeaders, 'Content-Type': 'application/json' });
    response.end(JSON.stringify(typeof found === 'string' ? { why: found } : found));
  }
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
      unsubscribe();
      clearInterval(heartbeat);
      clearTimeout(settling);
      for (const stream of streams) stream.end();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

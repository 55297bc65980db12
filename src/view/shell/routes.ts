// The view listener's routes: read-only, from loopback names or the configured host only, with the security
// headers on every answer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { hostAllowed } from '../hosts.ts';
import { maxStreams, type EventStreams } from './events.ts';
import type { ViewData } from '../data.ts';

export interface ViewRoutesOptions {
  /** The address listened on: a Host header may name it, or a loopback name. */
  readonly host: string;
  /** The data as of now. */
  readonly read: () => ViewData;
  /**
   * Further GET /api/<name> routes, each answering JSON for its query parameters, or a string saying why there
   * is nothing (404): a node's record, a search, placements, a pair's RTT history, a decision's explain.
   */
  readonly queries?: Readonly<Record<string, (query: URLSearchParams) => unknown>>;
  readonly log: Logger;
}

/** URL path → the static file it serves. */
export const assets: Readonly<Record<string, string>> = {
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

/** `files`: each asset's path → its text. */
export function viewRoutes(
  options: ViewRoutesOptions,
  files: ReadonlyMap<string, string>,
  streams: EventStreams,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://view');
    const path = url.pathname;
    if (!hostAllowed(request.headers.host, options.host))
      return answer(response, 421, `the topology view answers only loopback names and ${options.host} in Host\n`);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...securityHeaders, Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
      return response.end('the topology view is read-only\n');
    }
    const asset = assets[path];
    if (asset !== undefined) return answer(response, 200, files.get(path), types[asset.split('.').pop()!]!);
    if (path === '/api/snapshot') return answer(response, 200, JSON.stringify(options.read()), 'application/json');
    const query = path.startsWith('/api/') ? options.queries?.[path.slice(5)] : undefined;
    if (query !== undefined) return answerQuery(response, options.log, () => query(url.searchParams));
    if (path === '/api/events') {
      if (streams.full()) return answer(response, 503, `${maxStreams} views are open already\n`);
      response.writeHead(200, { ...securityHeaders, 'Content-Type': 'text/event-stream' });
      return streams.open(response);
    }
    const queries = Object.keys(options.queries ?? {}).join(',');
    answer(response, 404, `no ${path} here: the view serves /, /api/snapshot, /api/events and /api/{${queries}}\n`);
  };
}

function answer(response: ServerResponse, status: number, body: string | undefined, type = 'text/plain'): void {
  response.writeHead(status, { ...securityHeaders, 'Content-Type': type });
  response.end(body);
}

/** A query's JSON, or a string saying why there is nothing (404); a query that throws says so too. */
function answerQuery(response: ServerResponse, log: Logger, query: () => unknown): void {
  let found: unknown;
  try {
    found = query();
  } catch (error) {
    log.warn({ err: error }, 'a view query failed');
    found = `failed: ${(error as Error).message}`;
  }
  const status = typeof found === 'string' ? 404 : 200;
  answer(response, status, JSON.stringify(typeof found === 'string' ? { why: found } : found), 'application/json');
}

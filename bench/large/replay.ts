// A loopback API server that replays a recorded list/watch stream (generate.ts):
// lists page by page (`limit` and `continue`, or the whole List in one answer
// without a limit), watches that stay open and get the recorded events when the
// benchmark says (POST /bench/emit, /bench/churn), and 404 for everything else.
// It counts what each client asks for and what it is sent: the cost of
// topogate's watches to an API server.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readLines } from './lines.ts';
import { PAGE_ITEMS, RESOURCES, type RecordedResource } from './resources.ts';

interface Recorded {
  readonly resource: RecordedResource;
  readonly pages: readonly Buffer[];
  readonly items: number;
  /** Per page: its items' JSON without the brackets, for a List served whole. */
  readonly pageItems: readonly Buffer[];
  readonly churn: Buffer[];
  readonly canary: Buffer[];
  readonly watchers: Set<ServerResponse>;
}

export interface Traffic {
  /** Per resource: requests (lists and watches), the query strings seen, bytes and objects sent. */
  readonly resources: Record<
    string,
    { lists: number; watches: number; queries: string[]; listBytes: number; eventBytes: number; objects: number }
  >;
  /** Requests for paths the stream does not hold (answered 404). */
  readonly other: Record<string, number>;
}

export interface Replay {
  readonly url: string;
  readonly items: Record<string, number>;
  traffic(): Traffic;
  /** What the last churn window sent. */
  churnTraffic(): Traffic | undefined;
  resetTraffic(): void;
  close(): Promise<void>;
}

const ITEMS = Buffer.from('"items":[');
const NEWLINE = Buffer.from('\n');

function load(dir: string, resource: RecordedResource): Recorded {
  const lines = readLines(join(dir, `${resource.name}.jsonl`));
  const pages = lines.filter((line) => line[2] === 0x6b /* {"kind" */);
  const pageItems = pages.map((page) => page.subarray(page.indexOf(ITEMS) + ITEMS.length, page.length - 2));
  const items = pageItems.reduce((sum, items) => sum + countItems(items), 0);
  const churn = lines.filter((line) => line[2] === 0x74 /* {"type" */);
  const canary = resource.name === 'nodes' ? readLines(join(dir, 'nodes.canary.jsonl')) : [];
  return { resource, pages, pageItems, items, churn, canary, watchers: new Set() };
}

/** Items in a page: its top-level objects (the generator writes one `{"apiVersion"` per item start). */
function countItems(items: Buffer): number {
  if (items.length === 0) return 0;
  let count = 0;
  const start = Buffer.from('{"apiVersion"');
  for (let at = items.indexOf(start); at >= 0; at = items.indexOf(start, at + 1))
    if (at === 0 || items[at - 1] === 0x2c) count++;
  return count;
}

function status(response: ServerResponse, code: number, message: string): void {
  response.writeHead(code, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code }));
}

export async function startReplay(dir: string): Promise<Replay> {
  const recorded = new Map(RESOURCES.map((resource) => [resource.path, load(dir, resource)]));
  const byName = new Map([...recorded.values()].map((entry) => [entry.resource.name, entry]));
  const cursor = new Map<string, number>();
  let traffic: Traffic = { resources: {}, other: {} };
  let churnTraffic: Traffic | undefined;
  const countsOf = (name: string) =>
    (traffic.resources[name] ??= { lists: 0, watches: 0, queries: [], listBytes: 0, eventBytes: 0, objects: 0 });

  /** Sends the next `count` events of a recorded queue to every open watch of the resource. */
  function emit(entry: Recorded, stream: 'churn' | 'canary', count: number): number {
    const queue = entry[stream];
    const key = `${entry.resource.name}/${stream}`;
    let sent = 0;
    for (; sent < count; sent++) {
      const at = cursor.get(key) ?? 0;
      if (queue.length === 0) break;
      const line = queue[at % queue.length]!;
      cursor.set(key, at + 1);
      const counts = countsOf(entry.resource.name);
      for (const watcher of entry.watchers) {
        watcher.write(line);
        watcher.write(NEWLINE);
        counts.eventBytes += line.length + 1;
        counts.objects++;
      }
    }
    return sent;
  }

  function list(entry: Recorded, query: URLSearchParams, response: ServerResponse): void {
    const counts = countsOf(entry.resource.name);
    counts.lists++;
    const limit = Number(query.get('limit') ?? 0);
    const page = Number(query.get('continue') ?? 0);
    if (limit > 0) {
      if (limit < PAGE_ITEMS && entry.items > limit)
        return status(response, 400, `the replay serves pages of ${PAGE_ITEMS} items: limit ${limit} is below`);
      const body = entry.pages[page];
      if (!body) return status(response, 410, `continue token ${page} expired`);
      response.writeHead(200, { 'content-type': 'application/json' });
      counts.listBytes += body.length + 1;
      counts.objects += page === entry.pages.length - 1 ? entry.items - page * PAGE_ITEMS : PAGE_ITEMS;
      // As the API server does: its encoder ends a List with a newline.
      response.write(body);
      response.end('\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    const head = `{"kind":"${entry.resource.listKind}","apiVersion":"${entry.resource.apiVersion}","metadata":{"resourceVersion":"10000000"},"items":[`;
    response.write(head);
    let bytes = head.length + 3;
    entry.pageItems.forEach((items, index) => {
      if (index > 0 && items.length > 0) response.write(',');
      response.write(items);
      bytes += items.length + 1;
    });
    response.end(']}\n');
    counts.listBytes += bytes;
    counts.objects += entry.items;
  }

  function watch(entry: Recorded, response: ServerResponse): void {
    countsOf(entry.resource.name).watches++;
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.flushHeaders();
    entry.watchers.add(response);
    response.on('close', () => entry.watchers.delete(response));
  }

  async function control(path: string, query: URLSearchParams, response: ServerResponse): Promise<void> {
    if (path === '/bench/emit') {
      const entry = byName.get(query.get('resource') ?? '');
      if (!entry) return status(response, 404, `no resource ${query.get('resource')}`);
      const sent = emit(entry, query.get('stream') === 'canary' ? 'canary' : 'churn', Number(query.get('count') ?? 1));
      // When the event left, on the clock every process of the machine shares (ms since the epoch, µs precision).
      const writtenAt = performance.timeOrigin + performance.now();
      response.end(JSON.stringify({ sent, watchers: entry.watchers.size, writtenAt }));
      return;
    }
    if (path === '/bench/churn') {
      // Events per second of each resource, for `seconds`, in ticks of 10 ms.
      const seconds = Math.min(Number(query.get('seconds') ?? 1), 60);
      const rates = [...byName.values()]
        .map((entry) => ({ entry, rate: Number(query.get(entry.resource.name) ?? 0) }))
        .filter(({ rate }) => rate > 0);
      const ticks = Math.round(seconds * 100);
      // The window's traffic is counted apart: the watches' steady cost, not the lists'.
      const outside = traffic;
      traffic = { resources: {}, other: {} };
      for (let tick = 0; tick < ticks; tick++) {
        for (const { entry, rate } of rates)
          emit(entry, 'churn', Math.floor(((tick + 1) * rate) / 100) - Math.floor((tick * rate) / 100));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      churnTraffic = traffic;
      traffic = outside;
      response.end(JSON.stringify({ seconds }));
      return;
    }
    if (path === '/bench/traffic') {
      response.end(JSON.stringify(traffic));
      return;
    }
    status(response, 404, `no control ${path}`);
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://replay');
    if (url.pathname.startsWith('/bench/')) {
      control(url.pathname, url.searchParams, response).catch((error: unknown) =>
        status(response, 500, (error as Error).message),
      );
      return;
    }
    const entry = recorded.get(url.pathname);
    if (!entry || request.method !== 'GET') {
      const key = `${request.method} ${url.pathname}`;
      traffic.other[key] = (traffic.other[key] ?? 0) + 1;
      return status(response, 404, `the replay holds no ${url.pathname}`);
    }
    const query = url.searchParams;
    const counts = countsOf(entry.resource.name);
    const asked = [...query.keys()]
      .filter((key) => key !== 'continue' && key !== 'resourceVersion')
      .map((key) => `${key}=${query.get(key)}`)
      .concat(
        query.has('resourceVersion') ? [`resourceVersion=${query.get('resourceVersion') === '0' ? '0' : 'N'}`] : [],
      )
      .join('&');
    if (!counts.queries.includes(asked)) counts.queries.push(asked);
    if (query.get('watch') === 'true' || query.get('watch') === '1') watch(entry, response);
    else list(entry, query, response);
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    items: Object.fromEntries([...byName].map(([name, entry]) => [name, entry.items])),
    traffic: () => traffic,
    churnTraffic: () => churnTraffic,
    resetTraffic() {
      traffic = { resources: {}, other: {} };
    },
    async close() {
      for (const entry of recorded.values()) for (const watcher of entry.watchers) watcher.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

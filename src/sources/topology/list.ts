// A collection listed as plain JSON, page by page (`limit` and `continue`), each
// page's objects slimmed as soon as it is parsed. Not client-node's typed list:
// that turns every object into class instances (a Date per timestamp) that the
// watch then turned back into JSON, which at 500,000 Pods was most of the first
// snapshot's time; and one unpaged List of that many Pods is larger than a
// JavaScript string can hold.

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../kube/types.ts';
import { MAX_PAGE_BYTES, PageBuffer } from './page-buffer.ts';
import { MemberSkim, type UnreadMembers } from '../../kube/skim.ts';

/**
 * Objects per page, client-go's default: a page is parsed in one turn of the event loop, which admission requests
 * wait behind (a page of 5,000 Pods was ~15 MB and 150-200 ms), and a page's objects then die young. At 65,000
 * nodes and 500,000 Pods, pages of 500 took the full collections while listing from 36 to 15.
 */
export const PAGE_LIMIT = 500;
/** Pages at most (50 million objects): a server that never stops paging is not followed further. */
const MAX_PAGES = 100_000;
/** A page's request is given up when its connection is silent this long (a page of Pods may take longer whole). */
const PAGE_TIMEOUT_MS = 60_000;

export interface ObjectList {
  readonly items: KubeObject[];
  readonly metadata?: { readonly resourceVersion?: string };
}

/** An HTTP status from the API server, shaped as client-node's errors are (errors.ts reads `code` and `body`). */
export class ListError extends Error {
  readonly code: number;
  readonly body: string;

  constructor(code: number, body: string) {
    super(`HTTP ${code}`);
    this.code = code;
    this.body = body;
  }
}

interface Page {
  readonly items?: unknown;
  readonly metadata?: { readonly resourceVersion?: unknown; readonly continue?: unknown };
}

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** What a list and its watch select, as the API server's query parameters of those names. */
export interface Selectors {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/** What a list hands on, and when. */
export interface ListDelivery {
  /** Each page's items, as soon as the page is parsed and its items turned; the next page waits for a promise. */
  readonly onPage?: (items: readonly KubeObject[]) => void | Promise<void>;
  /** False: the answer's items are empty, so no page outlives its turn (onPage had them); default true. */
  readonly keep?: boolean;
  /** Ends the list where it is, the page being received included: a list no one wants pages no further. */
  readonly signal?: AbortSignal;
}

/**
 * The API server and how to reach it, as plain data that a worker thread can be given (off-thread.ts): the TLS
 * material and headers of the kubeconfig's current user, resolved once per list so that a rotated token is read.
 */
export interface ListTarget {
  readonly server: string;
  readonly options: RequestOptions;
}

/** The RequestOptions a kubeconfig sets that a list reads; its Agent only for a proxy (each thread keeps one). */
const TARGET_OPTIONS = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
  'headers',
  'auth',
] as const satisfies readonly (keyof RequestOptions)[];

/** The target of a list; with the kubeconfig's proxy agent when it names a proxy (an Agent cannot cross threads). */
export async function listTarget(config: KubeConfig): Promise<ListTarget> {
  const cluster = config.getCurrentCluster();
  if (!cluster?.server) throw new Error('no cluster in the kubeconfig');
  const resolved: RequestOptions = {};
  await config.applyToHTTPSOptions(resolved);
  const options: Record<string, unknown> = {};
  for (const name of TARGET_OPTIONS) if (resolved[name] !== undefined) options[name] = resolved[name];
  if (cluster.proxyUrl) options.agent = resolved.agent;
  return { server: cluster.server, options };
}

/**
 * Lists `path` (with the selectors, if any); `each` turns a parsed item into what is kept. Members `unread` names
 * are cut from each page before it is parsed (kube/skim.ts): what `each` drops need not be built first.
 */
export async function listPaged(
  target: ListTarget,
  path: string,
  selectors: Selectors,
  each: (item: KubeObject) => KubeObject,
  unread: UnreadMembers,
  { onPage, keep = true, signal }: ListDelivery = {},
): Promise<ObjectList> {
  const items: KubeObject[] = [];
  const resourceVersion = await listPageTexts(target, path, selectors, unread, signal, async (text) => {
    const turned = (JSON.parse(text) as KubeObject[]).map(each);
    if (keep) for (const item of turned) items.push(item);
    await onPage?.(turned);
  });
  return { items, metadata: resourceVersion ? { resourceVersion } : {} };
}

/**
 * Lists `path` as listPaged does, but hands on each page's items unparsed: the JSON text of their array, without
 * the members `unread` names (a worker thread posts it to the main thread, which parses it once). Answers the
 * list's resourceVersion.
 */
export async function listPageTexts(
  { server, options }: ListTarget,
  path: string,
  selectors: Selectors,
  unread: UnreadMembers,
  signal: AbortSignal | undefined,
  onPage: (items: string) => void | Promise<void>,
): Promise<string | undefined> {
  const skim = new MemberSkim(unread);
  // The page as received, and as parsed (without the unread members): reused from page to page.
  const [received, skimmed] = [new PageBuffer(), new PageBuffer()];
  let resourceVersion: string | undefined;
  let next: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = new URL(server.replace(/\/$/, '') + path);
    url.searchParams.set('limit', String(PAGE_LIMIT));
    for (const [name, value] of Object.entries(selectors)) if (value) url.searchParams.set(name, value);
    if (next) url.searchParams.set('continue', next);
    signal?.throwIfAborted();
    await get(url, options, received, signal);
    skimmed.reset();
    for (const piece of skim.cut(received.view())) skimmed.append(piece);
    const { items, metadata } = splitPage(skimmed.text());
    await onPage(items);
    // Every page carries the list's resourceVersion; the watch starts from it.
    if (typeof metadata?.resourceVersion === 'string') resourceVersion = metadata.resourceVersion;
    next = typeof metadata?.continue === 'string' && metadata.continue !== '' ? metadata.continue : '';
    if (!next) return resourceVersion;
  }
  throw new Error(`${path}: still paging after ${MAX_PAGES} pages of ${PAGE_LIMIT}`);
}

const ITEMS_KEY = '"items":[';

/**
 * A List's JSON as its items' array (text) and its metadata. The API server writes a built-in kind's List as its
 * kind, apiVersion and metadata, then its items, then a newline: only what comes before the items is parsed here,
 * and they are left to whoever keeps them. A List laid out otherwise (spaces, or a custom resource's, whose keys
 * come in alphabetical order) is parsed whole, and its items written again. Should the array end before the text
 * does, the items' text does not parse, and the list fails.
 */
export function splitPage(text: string): { readonly items: string; readonly metadata: Page['metadata'] } {
  // Go's JSON encoder ends what it writes with a newline.
  const list = text.trimEnd();
  const at = list.indexOf(ITEMS_KEY);
  if (at > 0 && list.endsWith('}') && list.slice(0, -1).trimEnd().endsWith(']')) {
    const envelope = parsedOrUndefined(`${list.slice(0, at)}"items":[]}`);
    if (envelope !== undefined)
      return { items: list.slice(at + ITEMS_KEY.length - 1, -1), metadata: envelope.metadata };
  }
  const whole = JSON.parse(text) as Page;
  return { items: JSON.stringify(Array.isArray(whole.items) ? whole.items : []), metadata: whole.metadata };
}

function parsedOrUndefined(text: string): Page | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Page) : undefined;
  } catch {
    return undefined;
  }
}

/** Receives the page at `url` into `page`. */
function get(url: URL, options: RequestOptions, page: PageBuffer, signal: AbortSignal | undefined): Promise<void> {
  const https = url.protocol === 'https:';
  const send = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        ...(https ? options : {}),
        headers: { ...options.headers, accept: 'application/json' },
        agent: options.agent ?? (https ? agents.https : agents.http),
        timeout: PAGE_TIMEOUT_MS,
        ...(signal && { signal }),
      },
      (response: IncomingMessage) => {
        page.reset();
        response.on('data', (chunk: Buffer) => {
          if (!page.append(chunk))
            request.destroy(new Error(`${url.pathname}: a list page over ${MAX_PAGE_BYTES / 1024 / 1024} MB`));
        });
        response.on('end', () => {
          if (response.statusCode === 200) resolve();
          else reject(new ListError(response.statusCode ?? 0, page.text()));
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`${url.pathname}: nothing received for ${PAGE_TIMEOUT_MS / 1000} s`)),
    );
    request.on('error', reject);
    request.end();
  });
}

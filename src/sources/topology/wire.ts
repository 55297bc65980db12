// What a list's worker thread (list-worker.ts) is asked, and how the objects
// it receives cross back to the main thread: as JSON text, one string per
// page, which the main thread parses in one call. Pods are parsed and slimmed
// in the worker, and cross as their records: a Pod's record is a small part of
// its JSON, and keeps its usage under a symbol, which no message carries (it
// crosses as [metadata, usage]). Every other source's items cross as the API
// server sent them, less their unread members (kube/unread-members.ts), and
// are parsed and slimmed once, in the main thread: parsing them in the worker
// too, to send them slimmed, was most of the worker's time.

import type { KubeObject } from '../../kube/types.ts';
import { unreadMembers } from '../../kube/unread-members.ts';
import { slim } from '../../kube-client/slim.ts';
import { podRecordOf, usageOf, type PodRecord } from '../../topology/read/pod-record.ts';
import type { PodUsage } from '../../topology/read/pod-usage.ts';
import {
  type ListDelivery,
  listPageTexts,
  listPaged,
  type ListTarget,
  type ObjectList,
  type Selectors,
} from './list.ts';

/** One list of a watched source: plain data, so that it can be posted to a worker. */
export interface ListRequest {
  /** A watched source's name (watches.ts): it says how items are slimmed. */
  readonly source: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly path: string;
  readonly selectors: Selectors;
}

/** To the worker: a list to take, a page applied (the worker runs one page ahead, no more), a list to drop. */
export type ToWorker =
  | { readonly type: 'list'; readonly id: number; readonly target: ListTarget; readonly request: ListRequest }
  | { readonly type: 'ack' | 'abort'; readonly id: number };

/** From the worker: a page's items (wire form, as JSON), the list's end, or why it failed. */
export type FromWorker =
  | { readonly type: 'page'; readonly id: number; readonly json: string }
  | { readonly type: 'end'; readonly id: number; readonly resourceVersion?: string }
  | {
      readonly type: 'error';
      readonly id: number;
      readonly message: string;
      readonly code?: number;
      readonly body?: string;
    };

/**
 * Takes the list `request` names in this thread (the worker's for Pods, the main thread's behind a proxy): each item
 * given apiVersion and kind and slimmed, the members nothing reads cut before each page is parsed.
 */
export function takeList(target: ListTarget, request: ListRequest, delivery: ListDelivery): Promise<ObjectList> {
  return listPaged(target, request.path, request.selectors, turnOf(request), unreadMembers(request.source), delivery);
}

/**
 * Takes the list in the worker: each page's wire form to `onPage`, which may wait. Answers the list's
 * resourceVersion.
 */
export async function takeListAsWire(
  target: ListTarget,
  request: ListRequest,
  signal: AbortSignal,
  onPage: (json: string) => void | Promise<void>,
): Promise<string | undefined> {
  const { path, selectors, source } = request;
  if (source !== 'pods') return listPageTexts(target, path, selectors, unreadMembers(source), signal, onPage);
  const { metadata } = await takeList(target, request, {
    keep: false,
    signal,
    onPage: (items) => onPage(podsToWire(items)),
  });
  return metadata?.resourceVersion;
}

/** What the informer keeps of an item of the list: given apiVersion and kind (a list's items have neither), slimmed. */
function turnOf({ source, apiVersion, kind }: ListRequest): (item: KubeObject) => KubeObject {
  // The informer's cache keys objects by metadata: every item has one.
  return (item) => slim(source, { apiVersion, kind, ...item, metadata: item.metadata ?? {} });
}

type PodWire = readonly [PodRecord['metadata'], PodUsage | null];

/** A page of Pod records as the JSON text that crosses to the main thread. */
function podsToWire(items: readonly KubeObject[]): string {
  // JSON has no undefined: a Pod that takes nothing crosses as null.
  return JSON.stringify(items.map((item): PodWire => [(item as PodRecord).metadata, usageOf(item) ?? null]));
}

/** The items of a page from their wire form, as takeList would have handed them on. */
export function fromWire(request: ListRequest, json: string): KubeObject[] {
  const items = JSON.parse(json) as unknown[];
  if (request.source !== 'pods') return (items as KubeObject[]).map(turnOf(request));
  return (items as PodWire[]).map(([metadata, usage]) => podRecordOf(metadata, usage ?? undefined));
}

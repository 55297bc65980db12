// What a list's worker thread (list-worker.ts) is asked, and how the objects
// it turned cross back to the main thread: as JSON text, one string per page,
// which the main thread parses in one call. A Pod's record keeps its usage
// under a symbol, which no message carries: it crosses as [metadata, usage].

import type { KubeObject } from '../../kube/types.ts';
import { unreadArrays } from '../../kube/unread-arrays.ts';
import { slim } from '../../kube-client/slim.ts';
import { podRecordOf, usageOf, type PodRecord } from '../../topology/read/pod-record.ts';
import type { PodUsage } from '../../topology/read/pod-usage.ts';
import { type ListDelivery, listPaged, type ListTarget, type ObjectList, type Selectors } from './list.ts';

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
 * Takes the list `request` names in this thread (the worker's, or the main thread's behind a proxy): each item given
 * apiVersion and kind and slimmed, the arrays nothing reads cut before each page is parsed.
 */
export function takeList(target: ListTarget, request: ListRequest, delivery: ListDelivery): Promise<ObjectList> {
  const { source, apiVersion, kind } = request;
  // The informer's cache keys objects by metadata: every item has one.
  const turn = (item: KubeObject) => slim(source, { apiVersion, kind, ...item, metadata: item.metadata ?? {} });
  return listPaged(target, request.path, request.selectors, turn, unreadArrays(source), delivery);
}

type PodWire = readonly [PodRecord['metadata'], PodUsage | null];

/** A page's turned items as the JSON text that crosses to the main thread. */
export function toWire(source: string, items: readonly KubeObject[]): string {
  if (source !== 'pods') return JSON.stringify(items);
  // JSON has no undefined: a Pod that takes nothing crosses as null.
  return JSON.stringify(items.map((item): PodWire => [(item as PodRecord).metadata, usageOf(item) ?? null]));
}

/** The items of a page from their wire form. */
export function fromWire(source: string, json: string): KubeObject[] {
  const items = JSON.parse(json) as unknown[];
  if (source !== 'pods') return items as KubeObject[];
  return (items as PodWire[]).map(([metadata, usage]) => podRecordOf(metadata, usage ?? undefined));
}

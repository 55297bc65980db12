// The placement controller: while this replica holds the Lease, it watches
// unbound Pods (field selector spec.nodeName=, as the scheduler does), and
// releases each one behind topogate's gate as planRelease says, with one
// PATCH. The first list of every (re)start finds every gated Pod, so none is
// lost across a restart or a change of leader. A Pod that must wait is looked
// at again when the model or the policies change, and at its --defer-max.

import { CoreV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Pod } from '../kube/types.ts';
import { podRequest, schedulingGates } from '../kube/podFacts.ts';
import { gateIndex } from '../policy/deferral.ts';
import type { AfterCreation, Decision, PodRequest } from '../policy/types.ts';
import { describeKubeError, statusOf } from '../kube-client/errors.ts';
import type { BackoffOptions } from '../kube-client/backoff.ts';
import { Informer } from '../kube-client/informer.ts';
import { elect } from '../kube-client/lease.ts';
import { createGateMetrics } from './metrics.ts';
import { firstSeen, planRelease, released, type PodEvent } from './release.ts';

export interface PlacementControllerOptions {
  readonly config: KubeConfig;
  readonly place: (request: PodRequest, created: AfterCreation) => Decision | { readonly wait: string };
  /**
   * The Pod as a release is about to make it (and as it was again when the release failed): the model counts a
   * Pod pinned to a domain there before the watch says so, so the next Pod of its workload is pinned knowing it.
   */
  readonly expect?: (pod: Pod) => void;
  /** Called after the model or the policies change; returns an unsubscribe function. */
  readonly subscribe: (listener: () => void) => () => void;
  readonly deferMaxMs: number;
  /** Where the Lease lives (the replica's own namespace). */
  readonly leaseNamespace: string;
  readonly log: Logger;
  readonly registry: Registry;
  readonly leaseDurationMs?: number;
  /** After a failed list or a broken watch, how long until the next list (default: 0.5 s doubling to 30 s). */
  readonly relistBackoff?: BackoffOptions;
}

export interface PlacementController {
  stop(): Promise<void>;
}

export const LEASE_NAME = 'topogate-placement';
const RETRY_MS = 2_000;
/** Releases in flight at once: each is one PATCH, so a burst of gated Pods is not released one round trip at a time. */
const PARALLEL = 8;

export function startPlacementController(options: PlacementControllerOptions): PlacementController {
  const { config, deferMaxMs, log: parentLog } = options;
  const log = parentLog.child({ component: 'placement' });
  const metrics = createGateMetrics(options.registry);
  const core = config.makeApiClient(CoreV1Api);
  let informer: Informer<KubernetesObject> | undefined;
  const pending = new Set<string>();
  /** Gated Pods that wait, with the timer for their --defer-max. */
  const waiting = new Map<string, NodeJS.Timeout>();
  const inFlight = new Set<string>();

  const enqueue = (key: string) => {
    pending.add(key);
    pump();
  };

  function startWatching(): void {
    const seen = (object: KubernetesObject) => {
      if (gateIndex(schedulingGates(object)) >= 0) enqueue(keyOf(object));
      else forget(keyOf(object));
    };
    informer = new Informer<KubernetesObject>({
      config,
      path: '/api/v1/pods',
      fieldSelector: 'spec.nodeName=',
      list: async () => {
        const list = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=' });
        // Typed objects (Dates) back to the JSON the engine and the patch read.
        const items = JSON.parse(JSON.stringify(list.items)) as KubernetesObject[];
        return { ...list, items: items.map((item) => ({ apiVersion: 'v1', kind: 'Pod', ...item })) };
      },
      ...(options.relistBackoff !== undefined && { backoff: options.relistBackoff }),
      title: 'watching unbound Pods',
      log,
      onEvent: (type, object) => (type === 'DELETED' ? forget(keyOf(object)) : seen(object)),
      // The relist finds every gated Pod again; until then nothing is planned from a cache that may be stale.
      onFailure: () => void forgetAll(),
    });
    informer.start();
  }

  function stopWatching(): void {
    void informer?.stop();
    informer = undefined;
    forgetAll();
  }

  function forgetAll(): void {
    for (const key of [...waiting.keys()]) forget(key);
    pending.clear();
  }

  function forget(key: string): void {
    clearTimeout(waiting.get(key));
    waiting.delete(key);
    metrics.gated.set(waiting.size);
  }

  /** Up to PARALLEL releases at once, never two of one Pod. */
  function pump(): void {
    for (const key of pending) {
      if (inFlight.size >= PARALLEL) return;
      if (inFlight.has(key)) continue;
      pending.delete(key);
      inFlight.add(key);
      reconcile(key)
        .catch((error: unknown) => log.error({ err: error, pod: key }, 'planning a gated Pod failed'))
        .finally(() => {
          inFlight.delete(key);
          pump();
        });
    }
  }

  async function reconcile(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const pod = informer?.get(name, namespace) as Pod | undefined;
    if (pod === undefined || gateIndex(schedulingGates(pod)) < 0) return forget(key);
    const created = Date.parse(String(pod.metadata?.creationTimestamp ?? ''));
    const gatedMs = Number.isNaN(created) ? 0 : Math.max(0, Date.now() - created);
    const expired = gatedMs >= deferMaxMs;
    const request = podRequest(firstSeen(pod), namespace);
    const plan = planRelease(pod, (created) => options.place(request, created), expired, gatedMs);
    if ('wait' in plan) {
      if (!waiting.has(key)) {
        log.debug({ pod: key, why: plan.wait }, 'gated Pod waits');
        waiting.set(
          key,
          setTimeout(() => enqueue(key), deferMaxMs - gatedMs),
        );
        metrics.gated.set(waiting.size);
      }
      return;
    }
    options.expect?.(released(pod, plan.patch));
    try {
      await core.patchNamespacedPod({ name, namespace, body: plan.patch });
    } catch (error) {
      options.expect?.(pod);
      metrics.patchFailures.inc();
      // A Pod changed meanwhile fails the resourceVersion test (422) and is planned again on the update; a
      // fault is tried again. Either way it waits as any other, so its --defer-max still holds.
      log.info({ pod: key, status: statusOf(error) }, `releasing the gated Pod failed: ${describeKubeError(error)}`);
      clearTimeout(waiting.get(key));
      waiting.set(
        key,
        setTimeout(() => enqueue(key), RETRY_MS),
      );
      metrics.gated.set(waiting.size);
      return;
    }
    forget(key);
    metrics.releases.inc({ outcome: plan.outcome });
    metrics.duration.observe({ outcome: plan.outcome }, gatedMs / 1000);
    log.info({ pod: key, outcome: plan.outcome, gatedMs }, 'released the gated Pod');
    // Events are news, not state: the next release need not wait for them.
    void Promise.all(plan.events.map((event) => record(pod, event)));
  }

  async function record(pod: Pod, event: PodEvent): Promise<void> {
    const metadata = pod.metadata ?? {};
    const now = new Date();
    try {
      await core.createNamespacedEvent({
        namespace: String(metadata.namespace),
        body: {
          metadata: { generateName: `${String(metadata.name)}.` },
          involvedObject: {
            apiVersion: 'v1',
            kind: 'Pod',
            name: String(metadata.name),
            namespace: String(metadata.namespace),
            uid: String(metadata.uid),
          },
          type: event.type,
          reason: event.reason,
          message: event.message.slice(0, 1024),
          source: { component: 'topogate' },
          reportingComponent: 'topogate.dev/placement',
          reportingInstance: election.identity,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
    } catch (error) {
      log.warn({ pod: metadata.name }, `recording an Event failed: ${describeKubeError(error)}`);
    }
  }

  const unsubscribe = options.subscribe(() => {
    for (const key of waiting.keys()) pending.add(key);
    pump();
  });
  const election = elect({
    config,
    namespace: options.leaseNamespace,
    name: LEASE_NAME,
    log,
    ...(options.leaseDurationMs !== undefined && { leaseDurationMs: options.leaseDurationMs }),
    onStartedLeading: () => {
      metrics.leader.set(1);
      startWatching();
    },
    onStoppedLeading: () => {
      metrics.leader.set(0);
      stopWatching();
    },
  });

  return {
    async stop() {
      unsubscribe();
      await election.stop();
      stopWatching();
    },
  };
}

function keyOf(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

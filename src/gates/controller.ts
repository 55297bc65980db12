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
import type { BackoffOptions } from '../kube-client/backoff.ts';
import { describeKubeError, statusOf } from '../kube-client/errors.ts';
import type { Informer } from '../kube-client/informer.ts';
import { elect } from '../kube-client/lease.ts';
import { createGateMetrics, type GateMetrics } from './metrics.ts';
import { recordPodEvent } from './podEvent.ts';
import { firstSeen, planRelease, released } from './release.ts';
import { releaseQueue, type ReleaseQueue } from './releaseQueue.ts';
import { watchUnboundPods } from './unboundPods.ts';
import { GatedWaits } from './waits.ts';

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

/** What planning one gated Pod reads and changes. */
interface Planner {
  readonly options: PlacementControllerOptions;
  readonly log: Logger;
  readonly metrics: GateMetrics;
  readonly core: CoreV1Api;
  readonly waits: GatedWaits;
  readonly pods: () => Informer<KubernetesObject> | undefined;
  /** The Lease holder's identity: this replica's. */
  readonly identity: () => string;
}

export function startPlacementController(options: PlacementControllerOptions): PlacementController {
  const { config } = options;
  const log = options.log.child({ component: 'placement' });
  const metrics = createGateMetrics(options.registry);
  const core = config.makeApiClient(CoreV1Api);
  let informer: Informer<KubernetesObject> | undefined;
  const waits = new GatedWaits(metrics.gated, (key) => queue.add(key));
  const planner: Planner = {
    options,
    log,
    metrics,
    core,
    waits,
    pods: () => informer,
    identity: () => election.identity,
  };
  const queue: ReleaseQueue = releaseQueue(
    PARALLEL,
    (key) => reconcile(planner, key),
    (key, error) => log.error({ err: error, pod: key }, 'planning a gated Pod failed'),
  );
  const forgetAll = () => {
    waits.forgetAll();
    queue.clear();
  };

  const stopWatching = () => {
    void informer?.stop();
    informer = undefined;
    forgetAll();
  };
  const unsubscribe = options.subscribe(() => queue.addAll(waits.keys()));
  const election = elect({
    config,
    namespace: options.leaseNamespace,
    name: LEASE_NAME,
    log,
    ...(options.leaseDurationMs !== undefined && { leaseDurationMs: options.leaseDurationMs }),
    onStartedLeading: () => {
      metrics.leader.set(1);
      informer = watchGatedPods(planner, queue, forgetAll);
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

/** Queues every gated Pod the watch sees; forgets the others. */
function watchGatedPods(
  { options, log, core, waits }: Planner,
  queue: ReleaseQueue,
  forgetAll: () => void,
): Informer<KubernetesObject> {
  return watchUnboundPods({
    config: options.config,
    core,
    log,
    relistBackoff: options.relistBackoff,
    seen: (pod) => (gateIndex(schedulingGates(pod)) >= 0 ? queue.add(keyOf(pod)) : waits.forget(keyOf(pod))),
    deleted: (pod) => waits.forget(keyOf(pod)),
    // The relist finds every gated Pod again; until then nothing is planned from a cache that may be stale.
    failed: forgetAll,
  });
}

/** Plans one gated Pod: waits, or is released with one PATCH (and its Events recorded). */
async function reconcile(planner: Planner, key: string): Promise<void> {
  const { options, log, metrics, core, waits } = planner;
  const [namespace, name] = key.split('/') as [string, string];
  const pod = planner.pods()?.get(name, namespace) as Pod | undefined;
  if (pod === undefined || gateIndex(schedulingGates(pod)) < 0) return waits.forget(key);
  const created = Date.parse(String(pod.metadata?.creationTimestamp ?? ''));
  const gatedMs = Number.isNaN(created) ? 0 : Math.max(0, Date.now() - created);
  const expired = gatedMs >= options.deferMaxMs;
  const request = podRequest(firstSeen(pod), namespace);
  const plan = planRelease(pod, (created) => options.place(request, created), expired, gatedMs);
  if ('wait' in plan) {
    if (!waits.has(key)) {
      log.debug({ pod: key, why: plan.wait }, 'gated Pod waits');
      waits.wait(key, options.deferMaxMs - gatedMs);
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
    waits.wait(key, RETRY_MS);
    return;
  }
  waits.forget(key);
  metrics.releases.inc({ outcome: plan.outcome });
  metrics.duration.observe({ outcome: plan.outcome }, gatedMs / 1000);
  log.info({ pod: key, outcome: plan.outcome, gatedMs }, 'released the gated Pod');
  // Events are news, not state: the next release need not wait for them.
  void Promise.all(plan.events.map((event) => recordPodEvent(core, log, planner.identity(), pod, event)));
}

function keyOf(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

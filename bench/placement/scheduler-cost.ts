// What each arm's Pods cost the scheduler, measured apart from the arms: the
// default arm's Pods and topogate's (as the API server stored them, mutated)
// are created again as bare Pods on the same fabric, wave by wave as the arm
// created them, with no webhook registered, in alternating rounds (default
// first, then topogate first, ...). The arms themselves run minutes apart on
// a shared 2-core machine, where the scheduler's attempt time moved 4-16 Pods
// a second between arms with identical Pods; rounds side by side take that
// drift out of the ratio.

import type { V1Pod } from '@kubernetes/client-node';
import { median } from '../../src/stats/order.ts';

/**
 * Rounds of each arm's replay: the ratio is their median. Each figure is Pods bound per second of the attempts
 * that bound them: what a Pod's terms cost the scheduler, not how often a Pod the replay left without room (it
 * binds Pods on other nodes than the arm did) was tried again.
 */
export const COST_ROUNDS = 3;

export interface CostRound {
  readonly default: number | null;
  readonly topogate: number | null;
}

export interface SchedulerCost {
  /** Pods bound per second of the scheduler's attempts that bound them, each round. */
  readonly rounds: readonly CostRound[];
  /** The median over the rounds of topogate's figure over the default's in the same round. */
  readonly ratio: number | null;
}

/** The Pod as a bare Pod to create again: its placement and labels, without its owner, node or token volume. */
export function replayPod(pod: V1Pod, name: string): V1Pod {
  const { nodeName: _node, volumes, containers, initContainers, ...spec } = pod.spec!;
  const ownVolume = (volume: { name: string }) => !volume.name.startsWith('kube-api-access-');
  const withoutToken = <T extends { volumeMounts?: { name: string }[] }>(container: T): T => ({
    ...container,
    ...(container.volumeMounts && { volumeMounts: container.volumeMounts.filter(ownVolume) }),
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: pod.metadata!.namespace!,
      ...(pod.metadata!.labels && { labels: pod.metadata!.labels }),
      ...(pod.metadata!.annotations && { annotations: pod.metadata!.annotations }),
    },
    spec: {
      ...spec,
      containers: containers.map(withoutToken),
      ...(initContainers && { initContainers: initContainers.map(withoutToken) }),
      ...(volumes && { volumes: volumes.filter(ownVolume) }),
    },
  };
}

/** Each round's topogate figure over its default one; the median of those, null without a whole round. */
export function costRatio(rounds: readonly CostRound[]): number | null {
  const ratios = rounds
    .filter((round) => round.default !== null && round.topogate !== null && round.default > 0)
    .map((round) => round.topogate! / round.default!);
  return ratios.length === 0 ? null : median(ratios);
}

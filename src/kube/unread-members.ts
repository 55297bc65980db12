// The arrays (and of a Node, the objects) of each kind's objects that nothing in topogate reads: cut from the JSON
// before it is parsed (skim.ts), from a list's pages and from an admission request's body alike.

import type { UnreadMembers } from './skim.ts';

const METADATA_UNREAD = ['managedFields'] as const;

/**
 * A Pod's statuses and conditions, volumes, and each container's mounts, environment, command, arguments and
 * ports: a decision reads its labels, resources, placement and owners (podFacts.ts: of a container only its
 * resources and restartPolicy), the occupancy its resources, node and phase (pod-record.ts), and a patch writes
 * only affinity, spreads, the scheduler's name, gates and annotations.
 */
const POD_UNREAD = [
  ...METADATA_UNREAD,
  'conditions',
  'containerStatuses',
  'initContainerStatuses',
  'ephemeralContainerStatuses',
  'volumes',
  'volumeMounts',
  'env',
  'envFrom',
  'command',
  'args',
  'ports',
] as const;

/**
 * A Node's images and volumes; its annotations, and of its status all but allocatable, conditions and addresses
 * (kube-client/slim.ts keeps no more): no key of these names lies in what is kept (spec, labels, those three).
 */
const NODE_UNREAD: UnreadMembers = {
  arrays: [...METADATA_UNREAD, 'images', 'volumesInUse', 'volumesAttached', 'runtimeHandlers'],
  objects: ['annotations', 'capacity', 'nodeInfo', 'daemonEndpoints', 'config', 'features'],
};

const UNREAD: Readonly<Record<string, UnreadMembers>> = {
  nodes: NODE_UNREAD,
  pods: { arrays: POD_UNREAD },
};

/** Of `source`'s objects (a watched source's name: nodes, pods, …), the keys of the members nothing reads. */
export function unreadMembers(source: string): UnreadMembers {
  return UNREAD[source] ?? { arrays: METADATA_UNREAD };
}

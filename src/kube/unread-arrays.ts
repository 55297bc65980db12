// The arrays of each kind's objects that nothing in topogate reads: cut from the JSON before it is parsed
// (skim.ts), from a list's pages and from an admission request's body alike.

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

const UNREAD: Readonly<Record<string, readonly string[]>> = {
  nodes: [...METADATA_UNREAD, 'images'],
  pods: POD_UNREAD,
};

/** Of `source`'s objects (a watched source's name: nodes, pods, …), the keys of the arrays nothing reads. */
export function unreadArrays(source: string): readonly string[] {
  return UNREAD[source] ?? METADATA_UNREAD;
}

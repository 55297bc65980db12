// EtcdCluster: etcd members, where each runs and which is leader (docs/topology.md). Live, topogate
// scrapes the members' metrics; this object carries the same facts for offline topologies and for
// clusters whose etcd topogate cannot reach. The one source of its types, its JSON Schema and its CRD.

import Type, { type Static } from 'typebox';
import type { KindDefinition } from '../crd.ts';
import type { Frozen } from '../schema/frozen.ts';
import { stringMap } from '../schema/map.ts';
import { jsonPatterns } from '../schema/names.ts';
import { resource } from './resource.ts';

export const ETCD_CLUSTER = resource('EtcdCluster', 'etcdclusters');

const member = Type.Object({
  name: Type.String({ description: "The member's etcd name.", minLength: 1, maxLength: 253 }),
  nodeName: Type.Optional(Type.String({ description: 'The Node the member runs on.', ...jsonPatterns.dnsSubdomain })),
  endpoint: Type.Optional(
    Type.String({ description: 'The metrics or client URL the facts were read from.', maxLength: 2048 }),
  ),
  isLeader: Type.Boolean({ default: false }),
  hasLeader: Type.Optional(Type.Boolean()),
  peerRttMs: Type.Optional(
    stringMap(Type.Number({ minimum: 0 }), {
      description: 'Round-trip time in milliseconds to each peer, by member name.',
      maxProperties: 14,
    }),
  ),
});

export const etcdClusterStatus = Type.Object({
  members: Type.Optional(
    Type.Array(member, {
      maxItems: 15,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-validations': [
        {
          rule: 'self.filter(member, has(member.isLeader) && member.isLeader).size() <= 1',
          message: 'at most one member is leader',
        },
      ],
    }),
  ),
});

/** A member as status.members holds it (isLeader defaulted). */
export type EtcdClusterMember = Frozen<Static<typeof member>>;
export type EtcdClusterStatus = Frozen<Static<typeof etcdClusterStatus>>;

export const etcdClusterDefinition: KindDefinition = {
  resource: ETCD_CLUSTER,
  about: `etcd members, where each runs and which is leader (docs/topology.md).
Live, topogate scrapes the members' metrics endpoints; this object carries the same facts for
offline topologies (\`topogate snapshot\` writes it) and for clusters whose etcd topogate cannot
reach. Cluster-scoped: the control plane belongs to no namespace. Everything is status, written
by whoever observes etcd through the status subresource.`,
  printerColumns: [
    { name: 'Leader', type: 'string', jsonPath: '.status.members[?(@.isLeader==true)].name' },
    { name: 'Leader-Node', type: 'string', jsonPath: '.status.members[?(@.isLeader==true)].nodeName' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  status: etcdClusterStatus,
};

// NetworkTopology: round-trip times between failure domains, declared in spec (by a person, the cloud
// provider or the CNI) and measured in status (by `topogate probe`, or an adapter of another tool's
// metrics). The one source of its types, its JSON Schema and its CRD.

import Type, { type Static } from 'typebox';
import { ZONE_LABEL } from '../../kube/labels.ts';
import type { KindDefinition } from '../crd.ts';
import type { Frozen } from '../schema/frozen.ts';
import { jsonPatterns } from '../schema/names.ts';
import { resource } from './resource.ts';

export const NETWORK_TOPOLOGY = resource('NetworkTopology', 'networktopologies');

export const DEFAULT_DOMAIN_LABEL = ZONE_LABEL;

const domain = () =>
  Type.String({ description: 'A value of the domain label.', minLength: 1, ...jsonPatterns.labelValue });
const milliseconds = (description: string) => Type.Number({ description, minimum: 0 });
const nodeName = () => Type.String({ maxLength: 253 });

const declaredLink = Type.Object(
  {
    from: domain(),
    to: domain(),
    rttMs: milliseconds('Measured round-trip time in milliseconds.'),
    bandwidthGbps: Type.Optional(Type.Number({ description: 'Declared throughput in Gbit/s.', minimum: 0 })),
    symmetric: Type.Boolean({ description: 'The link holds in both directions unless false.', default: true }),
  },
  {
    'x-kubernetes-validations': [
      { rule: 'self.from != self.to', message: "a link joins two different domains (a domain's RTT to itself is 0)" },
    ],
  },
);

export const networkTopologySpec = Type.Object({
  domainLabel: Type.String({
    description: 'The node label whose values the links speak of.',
    ...jsonPatterns.labelKey,
    default: DEFAULT_DOMAIN_LABEL,
  }),
  links: Type.Array(declaredLink, { description: 'Measured links; a pair with no link is unknown.', maxItems: 4096 }),
});

const measuredLink = Type.Object({
  from: domain(),
  to: domain(),
  rttMs: milliseconds('Median round-trip time in milliseconds.'),
  rttP99Ms: Type.Optional(milliseconds('99th percentile round-trip time in milliseconds.')),
  samples: Type.Optional(Type.Integer({ description: 'How many round trips the figures summarise.', minimum: 0 })),
  bandwidthGbps: Type.Optional(
    Type.Number({ description: 'Measured throughput; without it the declared spec figure holds.', minimum: 0 }),
  ),
});

const degradedNode = Type.Object({
  name: nodeName(),
  rttMs: milliseconds("The node's median RTT to its own domain's peers."),
  zoneRttMs: milliseconds("The domain's median RTT between its nodes."),
});

const tierGroup = Type.Object({
  name: Type.String({ maxLength: 63 }),
  nodes: Type.Array(nodeName(), { maxItems: 1000 }),
});

const statusTier = Type.Object({
  level: Type.Integer({ minimum: 0, maximum: 6 }),
  thresholdMs: milliseconds('Node pairs closer than this are in one group at this level.'),
  confidence: Type.Number({
    description: 'The share of measured node pairs on the side of the threshold their groups say (0 to 1).',
    minimum: 0,
    maximum: 1,
  }),
  groups: Type.Array(tierGroup, {
    description: "This level's groups, largest first; names are opaque and stable.",
    maxItems: 1000,
  }),
  nodesOmitted: Type.Optional(
    Type.Integer({
      description: 'Nodes of this level not listed in groups (the list stops at 1,000).',
      minimum: 0,
    }),
  ),
});

const mislabeledNode = Type.Object({
  node: nodeName(),
  label: Type.String({ maxLength: 317 }),
  value: Type.String({ maxLength: 63 }),
  measured: Type.String({ maxLength: 63 }),
});

export const networkTopologyStatus = Type.Object({
  observedAt: Type.Optional(
    Type.String({
      description: 'When the links were measured; older than the configured max age, rules that need them degrade.',
      format: 'date-time',
    }),
  ),
  links: Type.Optional(
    Type.Array(measuredLink, {
      description:
        "Measured links (topogate probe, or an adapter of another tool's metrics), one per unordered pair of " +
        "domains seen; from == to is the domain's own RTT. They win over spec.links.",
      maxItems: 4096,
    }),
  ),
  degradedNodes: Type.Optional(
    Type.Array(degradedNode, {
      description: "Nodes whose RTT to their own domain's peers is far above the domain's, worst first.",
      maxItems: 1000,
    }),
  ),
  tiers: Type.Optional(
    Type.Array(statusTier, {
      description:
        'Levels derived from node-pair round trips (topogate probe), level 0 the coarsest: node pairs closer ' +
        'than thresholdMs share a group. Written once enough pairs are measured; at most 1,000 nodes listed ' +
        'per level (nodesOmitted counts the rest).',
      maxItems: 7,
    }),
  ),
  mislabeled: Type.Optional(
    Type.Array(mislabeledNode, {
      description:
        'Nodes whose zone label disagrees with the group they measure into, at most 100: `measured` is the ' +
        'value the other nodes of that group carry.',
      maxItems: 100,
    }),
  ),
});

/** A link as declared in spec.links (symmetric defaulted). */
export type DeclaredLink = Frozen<Static<typeof declaredLink>>;
/** A link as measured in status.links: a round trip, so it holds both ways; from == to is a domain's own RTT. */
export type MeasuredLink = Frozen<Static<typeof measuredLink>>;
/** A node far slower to its own domain's peers than the domain is (status.degradedNodes). */
export type DegradedNode = Frozen<Static<typeof degradedNode>>;
/** A node whose zone label disagrees with the group it measures into (status.mislabeled). */
export type MislabeledNode = Frozen<Static<typeof mislabeledNode>>;
/** One derived level of status.tiers. */
export type StatusTier = Frozen<Static<typeof statusTier>>;
export type TierGroup = StatusTier['groups'][number];
export type NetworkTopologyStatus = Frozen<Static<typeof networkTopologyStatus>>;

export const networkTopologyDefinition: KindDefinition = {
  resource: NETWORK_TOPOLOGY,
  about: `Measured round-trip times between failure domains (docs/topology.md).
Cluster-scoped: it describes the cluster's network, which no namespace owns. spec.links are
declared; \`topogate probe\` writes status (observedAt, measured links, degraded nodes, derived tiers,
mislabeled nodes) through the status subresource, so a user's \`kubectl apply\` of the declared links
never resets the measurements.`,
  shortNames: ['nettopo'],
  printerColumns: [
    { name: 'Domain-Label', type: 'string', jsonPath: '.spec.domainLabel' },
    { name: 'Observed', type: 'date', jsonPath: '.status.observedAt' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  root: { required: ['spec'] },
  spec: networkTopologySpec,
  status: networkTopologyStatus,
};

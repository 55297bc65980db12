// Names and addresses of the real nodes and their network, from the node count alone.
//
// host ── tg-host 10.250.0.1 ═ tg-up 10.250.0.2 ── router netns ── tg-node-<i> ═ eth0 ── node netns
//
// Node i (1-based) is in zone (i-1) mod 3; each zone owns 10.<200+zone>.0.0/16: its nodes are
// 10.<200+zone>.0.<i> and node i's Pods 10.<200+zone>.<i>.0/24, so one prefix per zone is
// enough to route (and to delay) the traffic between two zones.

export const zones = ['zone-a', 'zone-b', 'zone-c'] as const;
export type Zone = (typeof zones)[number];

/** The project's own namespaces and links; nothing else on the machine is touched. */
export const network = {
  routerNetns: 'topogate-router',
  hostVeth: 'tg-host',
  routerVeth: 'tg-up',
  hostIp: '10.250.0.1',
  routerIp: '10.250.0.2',
  /** Every zone's prefix, routed from the host through the router. */
  nodesCidr: '10.200.0.0/14',
  /** The TUN device in the router that delayed traffic goes through. */
  delayTun: 'tg-delay',
  /** The routing table that sends a delayed zone pair's traffic to the TUN. */
  delayTable: 100,
} as const;

export interface NodePlan {
  readonly index: number;
  readonly name: string;
  readonly zone: Zone;
  readonly netns: string;
  /** The router's end of the node's veth pair (the node's end is eth0 in its netns). */
  readonly routerVeth: string;
  readonly ip: string;
  readonly podCidr: string;
}

export function zonePrefix(zone: Zone): string {
  return `10.${200 + zones.indexOf(zone)}`;
}

export function nodePlan(index: number): NodePlan {
  if (!Number.isInteger(index) || index < 1 || index > 250) throw new Error(`no node ${index}`);
  const zone = zones[(index - 1) % zones.length] ?? 'zone-a';
  const prefix = zonePrefix(zone);
  return {
    index,
    name: `node-${index}`,
    zone,
    netns: `topogate-node-${index}`,
    routerVeth: `tg-node-${index}`,
    ip: `${prefix}.0.${index}`,
    podCidr: `${prefix}.${index}.0/24`,
  };
}

export function nodePlans(count: number): NodePlan[] {
  return Array.from({ length: count }, (_, i) => nodePlan(i + 1));
}

export function parseZone(text: string): Zone {
  const zone = zones.find((z) => z === text);
  if (!zone) throw new Error(`unknown zone ${text}: the nodes' zones are ${zones.join(', ')}`);
  return zone;
}

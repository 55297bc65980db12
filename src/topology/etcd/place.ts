// Puts scraped etcd members on Nodes and writes them as the EtcdCluster
// object files use, so that live and file topologies read the same way.

import { ETCD_CLUSTER, type EtcdClusterStatus } from '../../api/v1alpha1/etcdcluster.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { NodeIndex } from '../model.ts';
import { isRecord } from '../../kube/json.ts';
import { list, record, string, stringMap } from '../read/fields.ts';
import type { EtcdMetrics } from './metrics.ts';

export interface ScrapedMember {
  /** The URL scraped. */
  readonly endpoint: string;
  readonly metrics: EtcdMetrics;
}

const URL_FLAGS = ['--listen-metrics-urls', '--listen-client-urls', '--advertise-client-urls'];
const ADVERTISE_ANNOTATION = 'kubeadm.kubernetes.io/etcd.advertise-client-urls';

/**
 * A member runs on the node of the `component: etcd` Pod that serves its URL
 * (same host and port), else on the one Node with its host among its addresses.
 */
export function etcdClusterObject(
  members: readonly ScrapedMember[],
  pods: readonly KubeObject[],
  nodes: NodeIndex,
): KubeObject {
  const podNodes = nodesByPodUrl(pods);
  const addressNodes = nodesByAddress(nodes);
  const status: EtcdClusterStatus = {
    members: members.map(({ endpoint, metrics }) => {
      const url = hostPort(endpoint);
      const byAddress = url ? addressNodes.get(url.host) : undefined;
      const nodeName = (url && podNodes.get(url.hostPort)) ?? (byAddress?.length === 1 ? byAddress[0] : undefined);
      return {
        name: metrics.id ?? url?.hostPort ?? endpoint,
        ...(nodeName ? { nodeName } : {}),
        endpoint,
        isLeader: metrics.isLeader,
        ...(metrics.hasLeader === undefined ? {} : { hasLeader: metrics.hasLeader }),
        peerRttMs: metrics.peerRttMs,
      };
    }),
  };
  return {
    apiVersion: ETCD_CLUSTER.apiVersion,
    kind: ETCD_CLUSTER.kind,
    metadata: { name: 'default' },
    status,
  };
}

function nodesByPodUrl(pods: readonly KubeObject[]): Map<string, string> {
  const byUrl = new Map<string, string>();
  for (const pod of pods) {
    const metadata = record(pod.metadata);
    const nodeName = string(record(pod.spec).nodeName);
    if (stringMap(metadata.labels).component !== 'etcd' || !nodeName) continue;
    const urls = [...flagValues(pod), ...(stringMap(metadata.annotations)[ADVERTISE_ANNOTATION] ?? '').split(',')];
    for (const url of urls) {
      const parsed = hostPort(url.trim());
      if (parsed) byUrl.set(parsed.hostPort, nodeName);
    }
  }
  return byUrl;
}

/** The values of the URL flags in every container's command and args, `--flag=v` or `--flag v`. */
function flagValues(pod: KubeObject): string[] {
  const values: string[] = [];
  for (const container of list(record(pod.spec).containers)) {
    if (!isRecord(container)) continue;
    const words = [...list(container.command), ...list(container.args)].filter((w) => typeof w === 'string');
    words.forEach((word, i) => {
      const [flag, inline] = word.split(/=(.*)/s, 2);
      if (!URL_FLAGS.includes(flag!)) return;
      const value = inline ?? words[i + 1];
      if (value) values.push(...value.split(','));
    });
  }
  return values;
}

function nodesByAddress(nodes: NodeIndex): Map<string, string[]> {
  const byAddress = new Map<string, string[]>();
  for (const slot of nodes.all().slots()) {
    const node = nodes.bySlot(slot);
    for (const address of node?.addresses ?? [])
      byAddress.set(address, [...(byAddress.get(address) ?? []), node!.name]);
  }
  return byAddress;
}

function hostPort(url: string): { host: string; hostPort: string } | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    return { host, hostPort: `${parsed.hostname}:${port}` };
  } catch {
    return undefined;
  }
}

// Writes NetworkTopology/<name> status by the shared status writer, creating the object first when it is
// missing (spec.domainLabel = the zone label, no declared links).

import type { KubeConfig } from '@kubernetes/client-node';
import { NETWORK_TOPOLOGY, type NetworkTopologyStatus } from '../../api/v1alpha1/networktopology.ts';
import { StatusWriter as ClusterStatusWriter } from '../../kube-client/status-writer.ts';
import type { NetworkStatus } from '../aggregate.ts';
import type { DerivedStatus } from '../tiers.ts';

export class StatusWriter {
  readonly #writer: ClusterStatusWriter;

  constructor(config: KubeConfig, name: string, domainLabel: string) {
    this.#writer = new ClusterStatusWriter(config, { ...NETWORK_TOPOLOGY, name }, { domainLabel, links: [] });
  }

  /** Without `derived` (too few pairs yet, e.g. a new Lease holder), the tiers last written are kept. */
  async write(status: NetworkStatus, observedAt: Date, derived?: DerivedStatus): Promise<void> {
    const measured = { observedAt: observedAt.toISOString(), links: status.links, degradedNodes: status.degradedNodes };
    await this.#writer.write((current): NetworkTopologyStatus => ({
      ...measured,
      ...(derived ?? lastDerived(current)),
    }));
  }
}

function lastDerived(status: unknown): Partial<DerivedStatus> {
  if (typeof status !== 'object' || status === null) return {};
  const { tiers, mislabeled } = status as Record<string, unknown>;
  return { ...(Array.isArray(tiers) ? { tiers } : {}), ...(Array.isArray(mislabeled) ? { mislabeled } : {}) };
}

// Writes NetworkTopology/<name> status through the status subresource,
// creating the object first when it is missing (spec.domainLabel = the zone
// label, no declared links). A conflict (someone changed the object) reads it
// again and retries once.

import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { NetworkStatus } from '../aggregate.ts';
import type { DerivedStatus } from '../tiers.ts';
import { statusOf } from '../../kube-client/errors.ts';

const GROUP = 'topogate.dev';
const VERSION = 'v1alpha1';
const PLURAL = 'networktopologies';

type NetworkTopologyObject = { metadata?: Record<string, unknown>; spec?: unknown; status?: unknown };

export class StatusWriter {
  readonly #api: CustomObjectsApi;
  readonly #name: string;
  readonly #domainLabel: string;

  constructor(config: KubeConfig, name: string, domainLabel: string) {
    this.#api = config.makeApiClient(CustomObjectsApi);
    this.#name = name;
    this.#domainLabel = domainLabel;
  }

  /** Without `derived` (too few pairs yet, e.g. a new Lease holder), the tiers last written are kept. */
  async write(status: NetworkStatus, observedAt: Date, derived?: DerivedStatus): Promise<void> {
    const measured = { observedAt: observedAt.toISOString(), links: status.links, degradedNodes: status.degradedNodes };
    for (let attempt = 0; ; attempt++) {
      const object = (await this.#read()) ?? (await this.#create());
      const body = { ...measured, ...(derived ?? lastDerived(object.status)) };
      try {
        await this.#api.replaceClusterCustomObjectStatus({
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          name: this.#name,
          body: { ...object, status: body },
        });
        return;
      } catch (error) {
        if (statusOf(error) !== 409 || attempt > 0) throw error;
      }
    }
  }

  async #read(): Promise<NetworkTopologyObject | undefined> {
    try {
      return (await this.#api.getClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        name: this.#name,
      })) as NetworkTopologyObject;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async #create(): Promise<NetworkTopologyObject> {
    try {
      return (await this.#api.createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'NetworkTopology',
          metadata: { name: this.#name },
          spec: { domainLabel: this.#domainLabel, links: [] },
        },
      })) as NetworkTopologyObject;
    } catch (error) {
      // Created by someone else between our read and our create.
      if (statusOf(error) === 409) return (await this.#read())!;
      throw error;
    }
  }
}

function lastDerived(status: unknown): Partial<DerivedStatus> {
  if (typeof status !== 'object' || status === null) return {};
  const { tiers, mislabeled } = status as Record<string, unknown>;
  return { ...(Array.isArray(tiers) ? { tiers } : {}), ...(Array.isArray(mislabeled) ? { mislabeled } : {}) };
}

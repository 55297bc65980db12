// Writes one cluster-scoped custom object's status through its status subresource, as topogate's one-replica
// writers do (the probe's NetworkTopology, serve's ControlPlane): read the object, making it first when it is
// missing, and replace its status carrying the resourceVersion read, so a write never undoes one it did not see.
// A conflict (someone changed the object meanwhile) reads again and tries once more. Two or three API calls per
// write, whatever the cluster's size.

import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { statusOf } from './errors.ts';

export interface ClusterObjectRef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly name: string;
}

export interface CustomObject {
  readonly metadata?: Record<string, unknown>;
  readonly spec?: unknown;
  readonly status?: unknown;
}

export class StatusWriter {
  readonly #api: CustomObjectsApi;
  readonly #ref: ClusterObjectRef;
  readonly #spec: unknown;

  /** `spec`: the spec of the object made when it is missing (undefined: none). */
  constructor(config: KubeConfig, ref: ClusterObjectRef, spec?: unknown) {
    this.#api = config.makeApiClient(CustomObjectsApi);
    this.#ref = ref;
    this.#spec = spec;
  }

  /** Replaces the status with what `next` makes of the current one (undefined when the object has none). */
  async write(next: (current: unknown) => unknown): Promise<void> {
    const { group, version, plural, name } = this.#ref;
    for (let attempt = 0; ; attempt++) {
      const object = (await this.#read()) ?? (await this.#create());
      try {
        await this.#api.replaceClusterCustomObjectStatus({
          group,
          version,
          plural,
          name,
          body: { ...object, status: next(object.status) },
        });
        return;
      } catch (error) {
        if (statusOf(error) !== 409 || attempt > 0) throw error;
      }
    }
  }

  async #read(): Promise<CustomObject | undefined> {
    const { group, version, plural, name } = this.#ref;
    try {
      return (await this.#api.getClusterCustomObject({ group, version, plural, name })) as CustomObject;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async #create(): Promise<CustomObject> {
    const { group, version, plural, kind, name } = this.#ref;
    try {
      return (await this.#api.createClusterCustomObject({
        group,
        version,
        plural,
        body: {
          apiVersion: `${group}/${version}`,
          kind,
          metadata: { name },
          ...(this.#spec !== undefined && { spec: this.#spec }),
        },
      })) as CustomObject;
    } catch (error) {
      // Made by someone else between our read and our create.
      if (statusOf(error) === 409) {
        const made = await this.#read();
        if (made !== undefined) return made;
      }
      throw error;
    }
  }
}

// What a decision knows about the Pod under decision: its parsed facts (the
// only view of the Pod the core has), and what follows from them, computed on
// first use since most Pods match no policy that needs it.

import type { PodFacts } from '../kube/podFacts.ts';
import { effectiveRequests } from '../kube/requests.ts';
import { qosClass } from '../kube/qos.ts';
import type { Labels } from '../kube/types.ts';
import type { Occupancy, ResourceList, TopologySnapshot } from '../topology/model.ts';
import type { DecisionOptions, QosClass } from './types.ts';

export class PodContext {
  readonly facts: PodFacts;
  readonly snapshot: TopologySnapshot;
  readonly options: DecisionOptions;
  #requests: ResourceList | undefined;
  #qos: QosClass | undefined;
  #namespaceLabels: Labels | undefined;

  constructor(facts: PodFacts, snapshot: TopologySnapshot, options: DecisionOptions) {
    this.facts = facts;
    this.snapshot = snapshot;
    this.options = options;
  }

  get namespace(): string {
    return this.facts.namespace;
  }

  get labels(): Labels {
    return this.facts.labels;
  }

  get requests(): ResourceList {
    return (this.#requests ??= effectiveRequests(this.facts.resources));
  }

  get qos(): QosClass {
    return (this.#qos ??= qosClass(this.facts.resources));
  }

  /** The bound Pods: the newer occupancy the shell gave, else the snapshot's. */
  get occupancy(): Occupancy {
    return this.options.occupancy ?? this.snapshot.pods;
  }

  get namespaceLabels(): Labels {
    return (this.#namespaceLabels ??= namespaceLabels(this.snapshot, this.facts.namespace));
  }
}

/** A Namespace's labels in the model, with the kubernetes.io/metadata.name label the API server sets on every Namespace. */
export function namespaceLabels(snapshot: TopologySnapshot, namespace: string): Labels {
  return { ...snapshot.namespaces.get(namespace), 'kubernetes.io/metadata.name': namespace };
}

// What a decision knows about the Pod under decision. Request-derived facts
// are computed on first use: most Pods match no policy that needs them.

import { effectiveRequests, type QuantityParser } from '../kube/requests.ts';
import { qosClass } from '../kube/qos.ts';
import { isRecord } from '../kube/json.ts';
import type { Labels, Pod } from '../kube/types.ts';
import type { ResourceList, TopologySnapshot } from '../topology/model.ts';
import type { DecisionOptions, QosClass } from './types.ts';

export class PodContext {
  readonly pod: Pod;
  readonly namespace: string;
  readonly labels: Labels;
  readonly snapshot: TopologySnapshot;
  readonly options: DecisionOptions;
  #requests: ResourceList | undefined;
  #qos: QosClass | undefined;
  #namespaceLabels: Labels | undefined;
  readonly #parse: QuantityParser;

  constructor(
    pod: Pod,
    namespace: string,
    snapshot: TopologySnapshot,
    options: DecisionOptions,
    parse: QuantityParser,
  ) {
    this.pod = pod;
    this.namespace = namespace;
    this.snapshot = snapshot;
    this.options = options;
    this.#parse = parse;
    this.labels = stringLabels(pod.metadata?.labels);
  }

  get requests(): ResourceList {
    return (this.#requests ??= effectiveRequests(this.pod, this.#parse));
  }

  get qos(): QosClass {
    return (this.#qos ??= qosClass(this.pod, this.#parse));
  }

  get namespaceLabels(): Labels {
    return (this.#namespaceLabels ??= namespaceLabels(this.snapshot, this.namespace));
  }
}

/** A Namespace's labels in the model, with the kubernetes.io/metadata.name label the API server sets on every Namespace. */
export function namespaceLabels(snapshot: TopologySnapshot, namespace: string): Labels {
  return { ...snapshot.namespaces.get(namespace), 'kubernetes.io/metadata.name': namespace };
}

function stringLabels(labels: unknown): Labels {
  if (!isRecord(labels)) return {};
  return Object.fromEntries(
    Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

// The Pod parsed once, at the boundary (the admission request, the CLI's
// input, a workload's template), into the typed, immutable facts the decision
// core reads. Immutable by type (every field readonly), not frozen at run
// time: deep-freezing them took ~20 µs per Pod, and V8's JSON.stringify is
// ~3× slower on frozen objects, which the memo key pays again. The raw object never goes further: the facts are plain JSON
// (strings, numbers, booleans, arrays, objects), so that the decision memo's
// key is the facts themselves (JSON.stringify) and a rule cannot read a field
// the key leaves out. A value of the wrong type reads as absent, or as what
// matches no node where the scheduler would match none.
//
// To let a rule read a new Pod field: add it to PodFacts (or to one of its
// parts), fill it in podFacts() below, and read it from PodContext.facts.

import { isRecord, setOwn } from './json.ts';
import { parseRepeatedQuantity } from './quantity.ts';
import type { Labels, Pod } from './types.ts';
import { podWorkload, type WorkloadIdentity } from './workload-identity.ts';

/**
 * Resource quantities in milli-units, in the Pod's key order, parsed here once (every reader sums or compares
 * them). One that does not parse is left out: the API server rejects it, and every reader took it for absent.
 */
export type Quantities = Readonly<Record<string, number>>;

export interface ResourceFacts {
  readonly requests: Quantities;
  readonly limits: Quantities;
}

export interface RequirementFacts {
  readonly key: string;
  /** As written: an operator the scheduler does not know matches no node. */
  readonly operator: string;
  readonly values: readonly string[];
}

export interface TermFacts {
  readonly matchExpressions: readonly RequirementFacts[];
  readonly matchFields: readonly RequirementFacts[];
  /** An entry that is no requirement at all: the term matches no node. */
  readonly malformed: boolean;
  /** Whether matchExpressions is a list (a patch appends to it, or writes one). */
  readonly expressionsListed: boolean;
}

export interface TolerationFacts {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

/** What decides the nodes a Pod may land on before any policy: the placement memo's key. */
export interface PlacementFacts {
  readonly nodeSelector: Labels | undefined;
  /**
   * spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution's nodeSelectorTerms: undefined
   * without a required affinity, null when it holds no list (it matches no node); a term that is no object is null.
   */
  readonly requiredTerms: readonly (TermFacts | null)[] | null | undefined;
  readonly tolerations: readonly TolerationFacts[];
  /** The topologyKeys of the Pod's own DoNotSchedule spread constraints (the scheduler filters out nodes without them). */
  readonly spreadKeys: readonly string[];
}

export interface ContainerFacts {
  readonly resources: ResourceFacts;
  /** An init container with restartPolicy Always. */
  readonly sidecar: boolean;
}

export interface PodResourceFacts {
  readonly containers: readonly ContainerFacts[];
  readonly initContainers: readonly ContainerFacts[];
  /** spec.resources (pod-level), when it is an object. */
  readonly pod: ResourceFacts | undefined;
  readonly overhead: Quantities;
}

/** Which objects and lists on the patch's paths the Pod has, so that the patch adds what is missing and appends to what is not. */
export interface PodShape {
  readonly metadata: boolean;
  readonly annotations: boolean;
  readonly spec: boolean;
  readonly affinity: boolean;
  readonly nodeAffinity: boolean;
  readonly requiredAffinity: boolean;
  readonly preferredAffinity: boolean;
  readonly topologySpreadConstraints: boolean;
  readonly schedulingGates: boolean;
}

/** Everything a decision reads of one request for a Pod. */
export interface PodFacts {
  /** The request's namespace, else the Pod's, else "default". */
  readonly namespace: string;
  /** The workload the Pod belongs to (rollout.percent buckets by it; a DaemonSet's Pods are left alone). */
  readonly workload: WorkloadIdentity;
  /** String-valued labels and annotations. */
  readonly labels: Labels;
  readonly annotations: Labels;
  /** spec.nodeName when set (the Pod is bound: decisions skip it). */
  readonly nodeName: string | undefined;
  /** The topogate.dev/policies annotation as text when present, whatever its type: the Pod was decided already. */
  readonly decidedBy: string | undefined;
  readonly placement: PlacementFacts;
  /** The Pod's own spread constraints' (topologyKey, whenUnsatisfiable), for merge rule 3. */
  readonly spreads: readonly { readonly topologyKey: string; readonly whenUnsatisfiable: string }[];
  readonly schedulerName: string | undefined;
  /** spec.schedulingGates' names, by index (null: an entry without a string name). */
  readonly schedulingGates: readonly (string | null)[];
  readonly resources: PodResourceFacts;
  readonly shape: PodShape;
}

/** A Pod under decision: its facts, and its name for the explain trace (replicas differ there, decisions do not). */
export interface PodRequest {
  readonly facts: PodFacts;
  readonly name: string;
}

const POLICIES_ANNOTATION = 'topogate.dev/policies';

/**
 * Parses an untrusted Pod (any JSON value) and its request's namespace. `workload` is given when the Pod is a
 * workload's template (the workload is then the object itself); else it is read from the Pod's controller.
 */
export function podRequest(pod: unknown, namespace: string, workload?: WorkloadIdentity): PodRequest {
  const metadata = isRecord(pod) && isRecord(pod.metadata) ? pod.metadata : undefined;
  const name =
    typeof metadata?.name === 'string'
      ? metadata.name
      : typeof metadata?.generateName === 'string'
        ? metadata.generateName
        : '';
  return { facts: podFacts(pod, namespace, workload), name };
}

export function podFacts(pod: unknown, namespace: string, workload?: WorkloadIdentity): PodFacts {
  const metadata = isRecord(pod) && isRecord(pod.metadata) ? pod.metadata : undefined;
  const spec = isRecord(pod) && isRecord(pod.spec) ? pod.spec : undefined;
  const affinity = isRecord(spec?.affinity) ? spec.affinity : undefined;
  const nodeAffinity = isRecord(affinity?.nodeAffinity) ? affinity.nodeAffinity : undefined;
  const required = nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const annotations = metadata?.annotations;
  const spreads = records(spec?.topologySpreadConstraints);
  return {
    namespace,
    workload: workload ?? podWorkload(isRecord(pod) ? (pod as Pod) : {}, namespace),
    labels: strings(metadata?.labels),
    annotations: strings(annotations),
    nodeName: typeof spec?.nodeName === 'string' && spec.nodeName !== '' ? spec.nodeName : undefined,
    decidedBy:
      isRecord(annotations) && Object.hasOwn(annotations, POLICIES_ANNOTATION)
        ? text(annotations[POLICIES_ANNOTATION])
        : undefined,
    placement: placementFacts(spec, required, spreads),
    spreads: parsedEach(spreads, ({ topologyKey, whenUnsatisfiable }) =>
      typeof topologyKey === 'string' && typeof whenUnsatisfiable === 'string'
        ? { topologyKey, whenUnsatisfiable }
        : undefined,
    ),
    schedulerName: typeof spec?.schedulerName === 'string' ? spec.schedulerName : undefined,
    schedulingGates: schedulingGates(pod),
    resources: resourceFacts(spec),
    shape: {
      metadata: metadata !== undefined,
      annotations: isRecord(annotations),
      spec: spec !== undefined,
      affinity: affinity !== undefined,
      nodeAffinity: nodeAffinity !== undefined,
      requiredAffinity: isRecord(required),
      preferredAffinity: Array.isArray(nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
      topologySpreadConstraints: Array.isArray(spec?.topologySpreadConstraints),
      schedulingGates: Array.isArray(spec?.schedulingGates),
    },
  };
}

/** Where the Pod's own fields let it go: node selector, required node affinity, tolerations, hard spreads. */
function placementFacts(
  spec: Record<string, unknown> | undefined,
  required: unknown,
  spreads: readonly Record<string, unknown>[],
): PlacementFacts {
  return {
    nodeSelector: isRecord(spec?.nodeSelector) ? stringified(spec.nodeSelector) : undefined,
    requiredTerms: !isRecord(required)
      ? undefined
      : Array.isArray(required.nodeSelectorTerms)
        ? required.nodeSelectorTerms.map(term)
        : null,
    tolerations: parsedEach(records(spec?.tolerations), toleration),
    spreadKeys: parsedEach(spreads, ({ topologyKey, whenUnsatisfiable }) =>
      whenUnsatisfiable === 'DoNotSchedule' && typeof topologyKey === 'string' ? topologyKey : undefined,
    ),
  };
}

/** What the containers, init containers (restartPolicy Always: sidecars) and the Pod itself request. */
function resourceFacts(spec: Record<string, unknown> | undefined): PodResourceFacts {
  return {
    containers: records(spec?.containers).map((container) => ({
      resources: resources(container.resources),
      sidecar: false,
    })),
    initContainers: records(spec?.initContainers).map((container) => ({
      resources: resources(container.resources),
      sidecar: container.restartPolicy === 'Always',
    })),
    pod: isRecord(spec?.resources) ? resources(spec.resources) : undefined,
    overhead: quantities(spec?.overhead),
  };
}

/** A Pod's spec.schedulingGates names, by index; also read from live Pods by the placement controller. */
export function schedulingGates(pod: unknown): readonly (string | null)[] {
  const gates = isRecord(pod) && isRecord(pod.spec) ? pod.spec.schedulingGates : undefined;
  if (!Array.isArray(gates)) return [];
  return gates.map((gate) => (isRecord(gate) && typeof gate.name === 'string' ? gate.name : null));
}

function term(value: unknown): TermFacts | null {
  if (!isRecord(value)) return null;
  const expressions = Array.isArray(value.matchExpressions) ? value.matchExpressions : [];
  const fields = Array.isArray(value.matchFields) ? value.matchFields : [];
  const matchExpressions = parsedEach(expressions, requirement);
  const matchFields = parsedEach(fields, requirement);
  return {
    matchExpressions,
    matchFields,
    malformed: matchExpressions.length < expressions.length || matchFields.length < fields.length,
    expressionsListed: Array.isArray(value.matchExpressions),
  };
}

function requirement(value: unknown): RequirementFacts | undefined {
  if (!isRecord(value) || typeof value.key !== 'string') return undefined;
  const values = Array.isArray(value.values)
    ? value.values.filter((item): item is string => typeof item === 'string')
    : [];
  return { key: value.key, operator: text(value.operator), values };
}

/**
 * A toleration with a field of the wrong type tolerates nothing. Fields it lacks are undefined members, which readers
 * and JSON see as absent: one literal parsed a Pod's three tolerations 4-5× faster than adding each field found.
 */
function toleration({ key, operator, value, effect }: Record<string, unknown>): TolerationFacts | undefined {
  if (!absentOrText(key) || !absentOrText(operator) || !absentOrText(value) || !absentOrText(effect)) return undefined;
  return {
    key: key ?? undefined,
    operator: operator ?? undefined,
    value: value ?? undefined,
    effect: effect ?? undefined,
  };
}

function absentOrText(item: unknown): item is string | undefined | null {
  return item === undefined || item === null || typeof item === 'string';
}

function resources(value: unknown): ResourceFacts {
  return isRecord(value)
    ? { requests: quantities(value.requests), limits: quantities(value.limits) }
    : { requests: {}, limits: {} };
}

/** Through the bounded map of quantities seen (quantity.ts): a cluster's Pods repeat a few ("500m", "1Gi"). */
function quantities(value: unknown): Quantities {
  if (!isRecord(value)) return {};
  const result: Record<string, number> = {};
  for (const key in value) {
    const milli = parseRepeatedQuantity(value[key]);
    if (milli !== undefined) setOwn(result, key, milli);
  }
  return result;
}

/**
 * The members of `value` that are strings, in its key order, each an own member ("__proto__" too: setOwn); one
 * loop, not entries → filter → fromEntries, since every Pod's labels and annotations pass here. for…in, not
 * Object.keys: no list of keys per record; objects parsed from JSON inherit no members.
 */
function strings(value: unknown): Labels {
  if (!isRecord(value)) return {};
  const result: Record<string, string> = {};
  for (const key in value) {
    const item = value[key];
    if (typeof item === 'string') setOwn(result, key, item);
  }
  return result;
}

/** A nodeSelector value that is not a string is compared as its text, as the label index would see it. */
function stringified(value: Record<string, unknown>): Labels {
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, text(item)]));
}

/**
 * Any JSON value as text. String() would call an object's toString, and JSON.parse makes objects whose
 * own "toString" is a number: String({"toString": 1}) throws (test/unit/fuzz/pod-facts.test.ts).
 */
function text(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** parse(item) for each item, keeping what it returns but undefined: flatMap without an array per item. */
function parsedEach<T, R>(items: readonly T[], parse: (item: T) => R | undefined): R[] {
  const parsed: R[] = [];
  for (const item of items) {
    const result = parse(item);
    if (result !== undefined) parsed.push(result);
  }
  return parsed;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

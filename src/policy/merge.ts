// Merging the policies' outputs into the Pod without breaking what the user
// wrote (policy.md, merge rules 1–4), and the JSON Patch that says it.

import type { Requirement } from '../topology/nodeSelector.ts';
import type { PlacementFacts, PodFacts, PodShape, TermFacts } from '../kube/podFacts.ts';
import type {
  NodeSelectorRequirement,
  PatchOperation,
  PreferredSchedulingTerm,
  TopologySpreadConstraint,
} from '../kube/types.ts';
import { fixedPath, PatchWriter, type Path } from './patch.ts';

export const POLICIES_ANNOTATION = 'topogate.dev/policies';
export const NUMA_HINT_ANNOTATION = 'topogate.dev/numa-hint';
export const SKIP_ANNOTATION = 'topogate.dev/skip';
const DEFAULT_SCHEDULER = 'default-scheduler';

const NODE_AFFINITY = ['spec', 'affinity', 'nodeAffinity'] as const;
const REQUIRED_TERMS = fixedPath(
  ...NODE_AFFINITY,
  'requiredDuringSchedulingIgnoredDuringExecution',
  'nodeSelectorTerms',
);
const PREFERRED = fixedPath(...NODE_AFFINITY, 'preferredDuringSchedulingIgnoredDuringExecution');
const SPREADS = fixedPath('spec', 'topologySpreadConstraints');
const SCHEDULER_NAME = fixedPath('spec', 'schedulerName');
/** By annotation: only topogate's own few names are written. */
const annotationPaths = new Map<string, Path>();

export type MergeResult = { readonly added: boolean } | { readonly dropped: string };

/** The two answers of a merge that drops nothing, shared: every new Pod's outputs are merged. */
const ADDED: MergeResult = { added: true };
const PRESENT: MergeResult = { added: false };

/** What the policies added to one Pod: all that its patch and its decision record read of them. */
export interface Added {
  readonly requirements: readonly NodeSelectorRequirement[];
  readonly preferred: readonly PreferredSchedulingTerm[];
  readonly spreads: readonly TopologySpreadConstraint[];
  readonly schedulerName: string | undefined;
  readonly numaHint: Readonly<Record<string, string>> | undefined;
}

/** The part of the Pod a patch runs through: all that buildPatch reads of it. */
export interface PatchedPod {
  readonly shape: PodShape;
  readonly requiredTerms: PlacementFacts['requiredTerms'];
}

/** The Pod's part that a patch runs through. */
export function patchedPod({ shape, placement }: PodFacts): PatchedPod {
  return { shape, requiredTerms: placement.requiredTerms };
}

/** What the policies add to one Pod, with the merge rules applied as each output arrives. */
export class PodChanges implements Added {
  readonly requirements: NodeSelectorRequirement[] = [];
  readonly preferred: PreferredSchedulingTerm[] = [];
  readonly spreads: TopologySpreadConstraint[] = [];
  schedulerName: string | undefined;
  numaHint: Readonly<Record<string, string>> | undefined;
  readonly #pod: PodFacts;
  /** Computed on the first requirement; undefined when the Pod has no nodeSelectorTerms list (a new term will be written). */
  #existingTerms: readonly ReadonlySet<string>[] | undefined | null = null;
  /** Keys of the requirements added; made with the first, since many Pods are given none. */
  #requirementKeys: Set<string> | undefined;

  constructor(pod: PodFacts) {
    this.#pod = pod;
  }

  /**
   * Rule 1: an expression already in every term, or already added, is not
   * added again. An empty terms list, or an empty term, matches no node
   * (and the API server rejects it): it is left as written, never widened.
   */
  addRequirement(requirement: NodeSelectorRequirement): MergeResult {
    const key = outputKey(requirement);
    if (this.#requirementKeys?.has(key)) return PRESENT;
    if (this.#existingTerms === null) {
      this.#existingTerms = (this.#pod.placement.requiredTerms ?? undefined)
        ?.filter((term) => term !== null && matchesSomething(term))
        .map((term) => new Set(term!.matchExpressions.map(requirementKey)));
    }
    if (this.#existingTerms?.every((term) => term.has(key))) return PRESENT;
    (this.#requirementKeys ??= new Set()).add(key);
    this.requirements.push(requirement);
    return ADDED;
  }

  /** Rule 2: preferred terms are appended. */
  addPreferred(term: PreferredSchedulingTerm): MergeResult {
    this.preferred.push(term);
    return ADDED;
  }

  /** Rule 3: one constraint per (topologyKey, whenUnsatisfiable), the Pod's own first. */
  addSpread(spread: TopologySpreadConstraint): MergeResult {
    if (hasSpread(this.#pod.spreads, spread))
      return {
        dropped: `the Pod already has a ${spread.whenUnsatisfiable} spread constraint on ${spread.topologyKey}`,
      };
    if (hasSpread(this.spreads, spread))
      return {
        dropped: `a higher-priority policy already adds a ${spread.whenUnsatisfiable} spread constraint on ${spread.topologyKey}`,
      };
    this.spreads.push(spread);
    return ADDED;
  }

  /** Rule 4: only when the Pod names no scheduler or the default one. */
  setSchedulerName(name: string): MergeResult {
    const own = this.#pod.schedulerName;
    if (own !== undefined && own !== '' && own !== DEFAULT_SCHEDULER) {
      return own === name ? PRESENT : { dropped: `schedulerName ${name} not set: the Pod already uses ${own}` };
    }
    if (this.schedulerName === undefined) {
      this.schedulerName = name;
      return ADDED;
    }
    return this.schedulerName === name
      ? PRESENT
      : { dropped: `schedulerName ${name} not set: a higher-priority policy sets ${this.schedulerName}` };
  }

  setNumaHint(hint: Readonly<Record<string, string>>): MergeResult {
    if (this.numaHint !== undefined) return PRESENT;
    this.numaHint = hint;
    return ADDED;
  }
}

/** Whether `spreads` has one on the same (topologyKey, whenUnsatisfiable): a loop, no closure per spread merged. */
function hasSpread(
  spreads: readonly { readonly topologyKey: string; readonly whenUnsatisfiable: string }[],
  spread: TopologySpreadConstraint,
): boolean {
  for (const other of spreads)
    if (other.topologyKey === spread.topologyKey && other.whenUnsatisfiable === spread.whenUnsatisfiable) return true;
  return false;
}

/** The patch that writes the changes and annotations onto the Pod: built from them, not by diffing. */
export function buildPatch(
  pod: PatchedPod,
  changes: Added,
  annotations: Readonly<Record<string, string>>,
): PatchOperation[] {
  const writer = new PatchWriter(patchTarget(pod), { ownsDocument: true });
  if (changes.requirements.length > 0) writeRequirements(writer, changes.requirements, pod.requiredTerms);
  writer.append(PREFERRED, changes.preferred);
  writer.append(SPREADS, changes.spreads);
  if (changes.schedulerName !== undefined) writer.set(SCHEDULER_NAME, changes.schedulerName);
  // for…in, not Object.entries: no array made per annotation (a sixth of the patch's time went there).
  for (const key in annotations) writer.set(annotationPath(key), annotations[key]);
  return writer.operations;
}

function annotationPath(key: string): Path {
  let path = annotationPaths.get(key);
  if (path === undefined) annotationPaths.set(key, (path = fixedPath('metadata', 'annotations', key)));
  return path;
}

/** Rule 1: ANDed into every existing term (terms are ORed); one new term when there is none. */
function writeRequirements(
  writer: PatchWriter,
  requirements: readonly NodeSelectorRequirement[],
  terms: PatchedPod['requiredTerms'],
): void {
  if (!Array.isArray(terms)) {
    writer.set(REQUIRED_TERMS, [{ matchExpressions: requirements }]);
    return;
  }
  terms.forEach((term: TermFacts | null, index) => {
    if (term === null || !matchesSomething(term)) return;
    const present = new Set(term.matchExpressions.map(requirementKey));
    writer.append(
      [...REQUIRED_TERMS, index, 'matchExpressions'],
      requirements.filter((requirement) => !present.has(outputKey(requirement))),
    );
  });
}

/**
 * The part of the Pod the patch's paths run through, rebuilt from the facts: the objects and lists it has there
 * (empty: a patch appends with /-), and the required terms (whose own expressions it appends to). The patch the
 * writer builds against it is the one for the whole Pod, and needs nothing the facts leave out.
 */
function patchTarget({ shape, requiredTerms: terms }: PatchedPod): object {
  const nodeAffinity: Record<string, unknown> = {};
  if (shape.requiredAffinity) {
    nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = Array.isArray(terms)
      ? { nodeSelectorTerms: terms.map((term) => term && (term.expressionsListed ? { matchExpressions: [] } : {})) }
      : {};
  }
  if (shape.preferredAffinity) nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution = [];
  const spec: Record<string, unknown> = {};
  if (shape.affinity) spec.affinity = shape.nodeAffinity ? { nodeAffinity } : {};
  if (shape.topologySpreadConstraints) spec.topologySpreadConstraints = [];
  const target: Record<string, unknown> = {};
  if (shape.metadata) target.metadata = shape.annotations ? { annotations: {} } : {};
  if (shape.spec) target.spec = spec;
  return target;
}

/** A term with neither expressions nor fields matches no node in the scheduler. */
function matchesSomething(term: TermFacts): boolean {
  return term.matchExpressions.length > 0 || term.matchFields.length > 0;
}

/** The rules' outputs are kept and shared by the decisions that add them (jsonText.ts): their keys, made once. */
const outputKeys = new WeakMap<Requirement, string>();

function outputKey(requirement: Requirement): string {
  let key = outputKeys.get(requirement);
  if (key === undefined) outputKeys.set(requirement, (key = requirementKey(requirement)));
  return key;
}

/** Values compare as a set: [a, b] and [b, a] are the same expression. */
function requirementKey(requirement: Requirement): string {
  return JSON.stringify([requirement.key, requirement.operator, [...(requirement.values ?? [])].sort()]);
}

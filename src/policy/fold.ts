// The fold of a decision: the policies' outcomes (policyStep.ts) applied in
// priority order to what the Pod gets (its changes, warnings, the policies
// applied, Audit notes, the nodes still allowed), and the decision made of it.

import { NodeSet } from '../topology/nodeset.ts';
import type { CompiledPolicySet } from './compiler.ts';
import { PodContext } from './context.ts';
import { patchedPod, PodChanges } from './merge.ts';
import { describeChanges } from './mergeOutput.ts';
import type { DecisionRecorder, PolicyOutcome } from './outcome.ts';
import type { StepInput } from './policyStep.ts';
import type { AuditOutcome, Decision, DecisionOptions, PodRequest, SchedulingPolicy } from './types.ts';
import type { AppliedPolicy } from './writes.ts';

/** How an Audit policy's warning begins: it is said to whoever creates the Pod, never written onto the Pod. */
export const AUDIT_WARNING = 'audit: ';

export const NO_AUDIT: readonly AuditOutcome[] = [];

export class DecisionFold {
  readonly #compiled: CompiledPolicySet;
  readonly #recorder: DecisionRecorder;
  /** One input for every policy's step, its allowed set the fold's at the time: steps are synchronous and keep none. */
  readonly #input: { -readonly [Field in keyof StepInput]: StepInput[Field] };
  readonly #schedulable: NodeSet;
  readonly #own: NodeSet;
  readonly #facts: PodRequest['facts'];
  readonly #warnings: string[] = [];
  readonly #changes: PodChanges;
  readonly #matched: string[] = [];
  readonly #applied: string[] = [];
  readonly #recorded: AppliedPolicy[] = [];
  readonly #kept: string[] = [];
  readonly #auditNotes: Record<string, string> = {};
  #audited: AuditOutcome[] | undefined;
  #allowed: NodeSet;

  constructor(request: PodRequest, compiled: CompiledPolicySet, options: DecisionOptions, recorder: DecisionRecorder) {
    const { facts } = request;
    const snapshot = compiled.snapshot;
    this.#compiled = compiled;
    this.#recorder = recorder;
    this.#facts = facts;
    this.#changes = new PodChanges(facts);
    const { schedulable, own } = compiled.memo.placement(facts.placement);
    this.#schedulable = schedulable;
    this.#own = own;
    // Policies are not blamed for the Pod's own placement: when it allows nothing they are judged against
    // the schedulable nodes alone, and when nothing is schedulable for the Pod, against every node.
    const base = !own.isEmpty() ? own : !schedulable.isEmpty() ? schedulable : snapshot.nodes.all();
    if (schedulable.isEmpty())
      this.#warnings.push(
        `no node in the model is schedulable for this Pod (of ${snapshot.nodes.count}: cordoned, NotReady, with taints it does not tolerate, or without the key of its own DoNotSchedule spread constraints)`,
      );
    else if (own.isEmpty())
      this.#warnings.push(
        `the Pod's own nodeSelector and required node affinity allow none of the ${schedulable.size} nodes schedulable for it`,
      );
    this.#allowed = base;
    this.#input = {
      pod: new PodContext(facts, snapshot, options),
      base,
      allowed: base,
      applied: this.#applied,
      memo: compiled.memo,
      created: options.created,
      changes: this.#changes,
      warnings: this.#warnings,
      recorder,
    };
  }

  /** What the next policy's step starts from. */
  stepInput(): StepInput {
    this.#input.allowed = this.#allowed;
    return this.#input;
  }

  /** Applies one policy's outcome; the denial when it denies the Pod. */
  apply(policy: SchedulingPolicy, outcome: PolicyOutcome): Decision | undefined {
    const before = this.#allowed;
    if (outcome.kind === 'not matched') {
      this.#recorder.policy(policy, outcome, before, before);
      return undefined;
    }
    this.#matched.push(policy.name);
    const audit = policy.enforcement === 'Audit';
    if (outcome.kind === 'rejected') {
      this.#recorder.policy(policy, outcome, before, audit ? before : NodeSet.EMPTY);
      if (!audit) return this.#denied(policy.name, outcome.message);
      (this.#audited ??= []).push({ policy: policy.name, wouldChange: false, unsatisfiable: true });
      this.#auditNotes[policy.name] = `would deny the Pod: ${outcome.message}`;
      this.#warnings.push(`${AUDIT_WARNING}policy ${policy.name} would deny the Pod: ${outcome.message}`);
      return undefined;
    }
    const { changed, unsatisfiable, kept, results, nodes, changes, said } = outcome;
    if (kept) this.#kept.push(policy.name);
    if (audit) {
      (this.#audited ??= []).push({ policy: policy.name, wouldChange: changed, unsatisfiable });
      const note = changed ? `would add ${describeChanges(changes)}` : 'would change nothing';
      this.#auditNotes[policy.name] = note;
      this.#warnings.push(
        `${AUDIT_WARNING}policy ${policy.name} ${note}${said.length > 0 ? `; ${said.join('; ')}` : ''}`,
      );
    } else if (changed) {
      this.#applied.push(policy.name);
      this.#recorded.push({ policy, rules: results });
      this.#allowed = nodes;
    } else {
      this.#warnings.push(`policy ${policy.name} matched but changed nothing`);
    }
    this.#recorder.policy(policy, outcome, before, audit ? before : this.#allowed);
    return undefined;
  }

  /** The decision the outcomes applied come to (none denied the Pod). */
  decision(): Decision {
    const compiled = this.#compiled;
    const written =
      this.#recorded.length > 0
        ? compiled.memo.writes({ applied: this.#recorded, added: this.#changes, pod: patchedPod(this.#facts) })
        : undefined;
    const audited = this.#audited;
    const trace = this.#trace(this.#allowed, true, undefined);
    return {
      allowed: true,
      patch: written?.patch ?? [],
      warnings: this.#warnings,
      // The writes may be shared with other decisions: the audit notes go on a copy.
      auditAnnotations: audited
        ? { ...written?.auditAnnotations, audit: JSON.stringify(this.#auditNotes) }
        : (written?.auditAnnotations ?? {}),
      applied: this.#applied,
      matched: this.#matched,
      audited: audited ?? NO_AUDIT,
      snapshot: compiled.snapshotId,
      ...(this.#kept.length > 0 && { unsatisfiable: this.#kept }),
      ...(written && this.#changes.requirements.length > 0 && { required: this.#changes.requirements }),
      ...(trace ? { trace } : {}),
    };
  }

  #denied(rejectedBy: string, message: string): Decision {
    const snapshot = this.#compiled.snapshotId;
    const trace = this.#trace(NodeSet.EMPTY, false, message);
    return {
      allowed: false,
      message,
      rejectedBy,
      patch: [],
      warnings: this.#warnings,
      auditAnnotations: { denied: message, snapshot },
      applied: [],
      matched: this.#matched,
      audited: this.#audited ?? NO_AUDIT,
      snapshot,
      ...(trace ? { trace } : {}),
    };
  }

  #trace(final: NodeSet, allowed: boolean, message: string | undefined) {
    const { snapshot } = this.#compiled;
    const [schedulable, own, warnings] = [this.#schedulable, this.#own, this.#warnings];
    return this.#recorder.trace({ total: snapshot.nodes.count, schedulable, own, final, allowed, message, warnings });
  }
}

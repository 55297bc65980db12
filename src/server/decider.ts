// The real decision behind /mutate: the engine over the current policies and
// topology snapshot. The compiled set is kept per (policy version, snapshot
// version) and rebuilt as soon as either changes, off the request path, so a
// request only ever pays for the decision itself.

import type { Logger } from 'pino';
import type { ClaimDecider, PodDecider } from '../admission/handler.ts';
import { decideClaim } from '../policy/claims.ts';
import { compile, type CompiledPolicySet } from '../policy/compiler.ts';
import {
  anySourceStale,
  DEFERRED_ANNOTATION,
  deferredDecision,
  liftingGate,
  matchingPolicies,
  staleSources,
} from '../policy/deferral.ts';
import { decide, leftAloneReason } from '../policy/engine.ts';
import type { PolicyProvider } from '../ports/policies.ts';
import type { TopologyProvider } from '../ports/topology.ts';
import type { AfterCreation, Decision, PodRequest } from '../policy/types.ts';

export interface DeciderOptions {
  readonly policies: PolicyProvider;
  readonly topology: TopologyProvider;
  readonly maxSourceAgeMs: number;
  readonly log: Logger;
  readonly now?: () => number;
}

export interface Decider {
  readonly decide: PodDecider;
  /** The dra rule on a ResourceClaim or ResourceClaimTemplate being created. */
  readonly decideClaim: ClaimDecider;
  /**
   * The deferred answer when the decision cannot be made well now (`overrun`: the budget would be, the model is
   * not ready, a source a matching policy reads is stale) or is always deferred; undefined to decide now.
   */
  defer(request: PodRequest, overrun: string | undefined, always: boolean): Decision | undefined;
  /** The placement controller's decision on a Pod that exists; `wait` while it cannot be made well. */
  place(request: PodRequest, created: AfterCreation): Decision | { readonly wait: string };
  /** The decision on the current model with its trace (`explain`), off the request path: the view asks it. */
  explain(request: PodRequest): Decision;
  stop(): void;
}

export function createDecider({ policies, topology, maxSourceAgeMs, log, now = Date.now }: DeciderOptions): Decider {
  const compiled = compiledSet(policies, topology);
  // Failing here is only logged: the next request meets the same error and gets the safe answer.
  function warm(): void {
    try {
      compiled();
    } catch (error) {
      log.error({ err: error }, 'compiling the policies against the topology failed');
    }
  }
  const unsubscribe = [topology.subscribe(warm), policies.onChange(warm)];
  warm();
  const notNow = (request: PodRequest, options: FreshnessOptions) =>
    notNowReason(request, options, { policies, topology, compiled });

  return {
    decide: (request) =>
      liftingGate(
        decide(request, compiled(), { now: now(), maxSourceAgeMs, occupancy: topology.occupancy() }),
        request.facts,
      ),
    decideClaim: (request) => decideClaim(request, compiled()),
    defer(request, overrun, always) {
      const existing = request.facts.annotations[DEFERRED_ANNOTATION];
      // Reinvoked after deferring: the Pod waits for the controller as it is.
      if (typeof existing === 'string') return { ...unchanged, deferred: existing };
      // What the engine leaves alone is never gated (a bound Pod with a gate is refused by the API server).
      if (leftAloneReason(request) !== undefined) return undefined;
      const options = { now: now(), maxSourceAgeMs };
      const found = notNow(request, options);
      const reason = always ? 'always' : overrun !== undefined ? 'budget' : found.reason;
      if (reason === undefined) return undefined;
      const matching = 'matching' in found ? found.matching : matchingPolicies(request, compiled(), options);
      return deferredDecision(request, matching, reason);
    },
    place(request, created) {
      const options = { now: now(), maxSourceAgeMs, occupancy: topology.occupancy(), created };
      const found = notNow(request, options);
      if (found.reason !== undefined) return { wait: found.reason };
      return decide(request, compiled(), options);
    },
    explain: (request) =>
      decide(request, compiled(), { now: now(), maxSourceAgeMs, occupancy: topology.occupancy(), explain: true }),
    stop: () => unsubscribe.forEach((stop) => stop()),
  };
}

type FreshnessOptions = { readonly now: number; readonly maxSourceAgeMs: number };

/** The compiled set of the current policies and snapshot, compiled again only when either has changed. */
function compiledSet(policies: PolicyProvider, topology: TopologyProvider): () => CompiledPolicySet {
  let memo: { policyVersion: number; snapshotVersion: number; compiled: CompiledPolicySet } | undefined;
  return () => {
    const policySet = policies.current();
    const snapshot = topology.current();
    if (memo?.policyVersion !== policySet.version || memo.snapshotVersion !== snapshot.version) {
      memo = {
        policyVersion: policySet.version,
        snapshotVersion: snapshot.version,
        compiled: compile(policySet.policies, snapshot, memo?.compiled),
      };
    }
    return memo.compiled;
  };
}

/** Why a decision on the current model would not be a good one for these policies, if it would not. */
function notNowReason(
  request: PodRequest,
  options: FreshnessOptions,
  sources: { policies: PolicyProvider; topology: TopologyProvider; compiled: () => CompiledPolicySet },
) {
  const { policies, topology, compiled } = sources;
  const unready = [topology.readiness(), policies.readiness()].find((readiness) => !readiness.ready);
  if (unready) return { reason: `model not ready: ${unready.reason ?? 'starting'}` };
  const set = compiled();
  // The usual case, and every replica's: nothing is stale, so the Pod need not be matched to know it.
  if (!anySourceStale(set.snapshot, options)) return {};
  const matching = matchingPolicies(request, set, options);
  const stale = [...new Set(matching.matched.flatMap(({ policy }) => staleSources(policy, set.snapshot, options)))];
  return { matching, ...(stale.length > 0 && { reason: `stale: ${stale.join(', ')}` }) };
}

const unchanged: Decision = { allowed: true, patch: [], warnings: [], auditAnnotations: {}, applied: [], matched: [] };

// The real decision behind /mutate: the engine over the current policies and
// topology snapshot. The compiled set is kept per (policy version, snapshot
// version) and rebuilt as soon as either changes, off the request path, so a
// request only ever pays for the decision itself.

import type { Logger } from 'pino';
import type { PodDecider } from '../admission/handler.ts';
import { compile, type CompiledPolicySet } from '../policy/compiler.ts';
import { decide } from '../policy/engine.ts';
import type { PolicyProvider } from '../policy/store.ts';
import type { TopologyProvider } from '../topology/provider.ts';

export interface DeciderOptions {
  readonly policies: PolicyProvider;
  readonly topology: TopologyProvider;
  readonly maxSourceAgeMs: number;
  readonly log: Logger;
  readonly now?: () => number;
}

export interface Decider {
  readonly decide: PodDecider;
  stop(): void;
}

export function createDecider({ policies, topology, maxSourceAgeMs, log, now = Date.now }: DeciderOptions): Decider {
  let memo: { policyVersion: number; snapshotVersion: number; compiled: CompiledPolicySet } | undefined;

  function compiled(): CompiledPolicySet {
    const policySet = policies.current();
    const snapshot = topology.current();
    if (memo?.policyVersion !== policySet.version || memo.snapshotVersion !== snapshot.version) {
      memo = {
        policyVersion: policySet.version,
        snapshotVersion: snapshot.version,
        compiled: compile(policySet.policies, snapshot),
      };
    }
    return memo.compiled;
  }

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
  return {
    decide: (request) => decide(request, compiled(), { now: now(), maxSourceAgeMs }),
    stop: () => unsubscribe.forEach((stop) => stop()),
  };
}

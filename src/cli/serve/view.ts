// The topology view (--ui-listen) as a serve component: it reads the same
// topology snapshot and policies the webhook decides on, and keeps a ring of
// the recent decisions it is told of.

import type { PolicyVersion } from '../../ports/policies.ts';
import { viewData } from '../../view/data.ts';
import { recentDecisions, type RecentDecision } from '../../view/recent.ts';
import { startViewServer } from '../../view/shell/server.ts';
import type { Decision, PodRequest } from '../../policy/types.ts';
import type { ServeComponent } from './component.ts';

const figuresRefreshMs = 10_000;

function outcomeOf(decision: Decision): RecentDecision['outcome'] {
  if (!decision.allowed) return 'denied';
  if (decision.deferred !== undefined) return 'deferred';
  return decision.patch.length > 0 ? 'patched' : 'allowed';
}

function podName(request: PodRequest): string {
  return request.name || '(unnamed)';
}

export const view: ServeComponent = {
  name: 'view',
  async start({ config, topology, policies, log, started }) {
    if (config.uiListen === undefined) return undefined;
    const controlPlaneStatus = started.find((component) => component.controlPlaneStatus)?.controlPlaneStatus;
    const recent = recentDecisions();
    const listeners = new Set<() => void>();
    const changed = () => listeners.forEach((listener) => listener());
    const unsubscribeTopology = topology.subscribe(changed);
    const unsubscribePolicies = policies.onChange((_set: PolicyVersion) => changed());
    // The figures move with no event of their own: the open pages hear of them as often as they are measured.
    const figuresTick = controlPlaneStatus && setInterval(changed, figuresRefreshMs).unref();
    const server = await startViewServer({
      ...config.uiListen,
      log,
      read: () =>
        viewData({
          snapshot: topology.current(),
          policies: policies.current().policies,
          ...(policies.readiness().reason !== undefined && { policyProblem: policies.readiness().reason }),
          decisions: recent.list(),
          ...(controlPlaneStatus !== undefined && { controlPlaneStatus: controlPlaneStatus() }),
          now: Date.now(),
        }),
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    return {
      observe(request, decision, milliseconds) {
        recent.add({
          at: new Date().toISOString(),
          namespace: request.facts.namespace,
          pod: podName(request),
          outcome: outcomeOf(decision),
          policies: decision.applied,
          latencyMs: milliseconds,
          ...(decision.snapshot !== undefined && { snapshot: decision.snapshot }),
        });
        changed();
      },
      async stop() {
        unsubscribeTopology();
        unsubscribePolicies();
        clearInterval(figuresTick);
        await server.close();
      },
    };
  },
};

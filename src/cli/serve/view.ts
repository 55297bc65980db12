// The topology view (--ui-listen) as a serve component: it reads the same
// topology snapshot and policies the webhook decides on, keeps a ring of the
// recent decisions (the webhook's and the placement controller's) and what the
// model saw over the last hour, and answers the page's questions (src/view/).

import type { PolicyVersion } from '../../ports/policies.ts';
import type { ControlPlaneStatus } from '../../ports/controlplane.ts';
import { viewData, type ViewData } from '../../view/data.ts';
import { history as viewHistory, type History } from '../../view/history.ts';
import { viewQueries } from '../../view/queries.ts';
import { recentDecisions, type RecentDecisions } from '../../view/recent.ts';
import { decisionRecord } from '../../view/record.ts';
import { startViewServer } from '../../view/shell/server.ts';
import type { DecisionObserver, ServeComponent, ServeContext } from './component.ts';

const figuresRefreshMs = 10_000;

export const view: ServeComponent = {
  name: 'view',
  async start(context) {
    const { config, topology, policies, decider, log, started } = context;
    if (config.uiListen === undefined) return undefined;
    const controlPlaneStatus = started.find((component) => component.controlPlaneStatus)?.controlPlaneStatus;
    const recent = recentDecisions();
    const history = viewHistory();
    history.observe(topology.current(), Date.now());
    const listeners = new Set<() => void>();
    const changed = () => listeners.forEach((listener) => listener());
    const unsubscribeTopology = topology.subscribe(() => {
      history.observe(topology.current(), Date.now());
      changed();
    });
    const unsubscribePolicies = policies.onChange((_set: PolicyVersion) => changed());
    // The figures move with no event of their own: the open pages hear of them as often as they are measured.
    const figuresTick = controlPlaneStatus && setInterval(changed, figuresRefreshMs).unref();
    const observer =
      (by: 'webhook' | 'controller'): DecisionObserver =>
      (request, decision, milliseconds) => {
        recent.add(decisionRecord(request, decision, milliseconds, by, Date.now()), request);
        changed();
      };
    const unsubscribePlaced = started.flatMap((component) => component.onPlaced?.(observer('controller')) ?? []);
    const server = await startViewServer({
      ...config.uiListen,
      log,
      read: viewReader(context, recent, history, controlPlaneStatus),
      queries: viewQueries({
        snapshot: () => topology.current(),
        occupancy: () => topology.occupancy(),
        recent,
        history,
        ...(controlPlaneStatus !== undefined && { controlPlaneStatus }),
        explain: (request) => decider.explain(request),
        now: Date.now,
      }),
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    return {
      observe: observer('webhook'),
      async stop() {
        unsubscribeTopology();
        unsubscribePolicies();
        unsubscribePlaced.forEach((unsubscribe) => unsubscribe());
        clearInterval(figuresTick);
        await server.close();
      },
    };
  },
};

/** The view's data as of now, from the context's topology and policies and the view's own records. */
function viewReader(
  { topology, policies }: ServeContext,
  recent: RecentDecisions,
  history: History,
  controlPlaneStatus: (() => ControlPlaneStatus) | undefined,
): () => ViewData {
  return () =>
    viewData({
      snapshot: topology.current(),
      occupancy: topology.occupancy(),
      policies: policies.current().policies,
      ...(policies.readiness().reason !== undefined && { policyProblem: policies.readiness().reason }),
      decisions: recent.list(),
      ...(controlPlaneStatus !== undefined && { controlPlaneStatus: controlPlaneStatus() }),
      history,
      now: Date.now(),
    });
}

// The view's questions beyond the snapshot, each a GET /api/<name> with query
// parameters: a node's record, a search over node names, a workload's
// placements, a zone pair's RTT over the last hour, and a decision's explain
// (the text `topogate explain` prints, from the same renderer). Each answers
// JSON, or a string saying why there is nothing. Pure over what it is given.

import type { ControlPlaneStatus } from '../ports/controlplane.ts';
import { renderTrace, type DecisionTrace } from '../policy/explain.ts';
import type { Decision, PodRequest } from '../policy/types.ts';
import type { Occupancy, TopologySnapshot } from '../topology/model.ts';
import { controlPlaneFigures } from './controlPlane.ts';
import type { History } from './history.ts';
import { tiersOf } from './map.ts';
import { nodeRecord, searchNodes } from './nodes.ts';
import { placements } from './placements.ts';
import type { RecentDecisions } from './recent.ts';

export interface QuerySources {
  readonly snapshot: () => TopologySnapshot;
  readonly occupancy: () => Occupancy;
  readonly recent: RecentDecisions;
  readonly history: History;
  readonly controlPlaneStatus?: () => ControlPlaneStatus;
  /** The decision on the current model with its trace. */
  readonly explain: (request: PodRequest) => Decision;
  readonly now: () => number;
}

/** Parameters are bounded before use: a name is at most this long. */
const maxParameter = 512;

function parameter(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  return value === null || value === '' || value.length > maxParameter ? undefined : value;
}

export function viewQueries(sources: QuerySources): Record<string, (query: URLSearchParams) => unknown> {
  return {
    node(query) {
      const name = parameter(query, 'name');
      if (name === undefined) return 'give ?name=NODE';
      const snapshot = sources.snapshot();
      const status = sources.controlPlaneStatus?.();
      const figures = status && controlPlaneFigures(status, sources.now());
      return (
        nodeRecord(snapshot, sources.occupancy(), name, tiersOf(snapshot).tiers, figures) ??
        `no node ${name} in the model`
      );
    },
    search(query) {
      return searchNodes(sources.snapshot(), parameter(query, 'q') ?? '');
    },
    placements(query) {
      const of = parameter(query, 'of');
      if (of === undefined) return 'give ?of=NAMESPACE or ?of=NAMESPACE/Kind/name';
      return placements(sources.snapshot(), sources.occupancy(), sources.recent.list(), of);
    },
    history(query) {
      const from = parameter(query, 'from');
      const to = parameter(query, 'to');
      if (from === undefined || to === undefined) return 'give ?from=ZONE&to=ZONE';
      return { from, to, samples: sources.history.series(from, to, sources.now()) };
    },
    explain(query) {
      const id = Number(parameter(query, 'id'));
      const found = Number.isSafeInteger(id) ? sources.recent.find(id) : undefined;
      if (found === undefined) return `no decision ${query.get('id') ?? ''} among the recent ones`;
      const { decision, request } = found;
      if (request === undefined) return { decision, explain: 'no request kept for this decision' };
      const trace = sources.explain(request).trace as DecisionTrace;
      return { decision, explain: renderTrace(trace, `Pod ${decision.namespace}/${decision.pod}`) };
    },
  };
}

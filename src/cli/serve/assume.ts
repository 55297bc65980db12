// Each Pod admitted for real with a placement that holds it to one label value
// (a zone a colocate rule chose, a rack a pack rule chose) goes into the live
// model's occupancy at once, before the API server has stored it: the next
// replica of the same burst is decided knowing it (topology/assumed.ts).

import type { AdmittedPod } from '../../admission/handler.ts';
import type { TopologyProvider } from '../../ports/topology.ts';
import { admittedUsage } from '../../topology/read/pod-usage.ts';

/** The admission hook for a live model; none for a model read from files, whose Pods never arrive. */
export function assumeAdmitted(topology: TopologyProvider): { admitted?: AdmittedPod } {
  if (topology.assume === undefined) return {};
  return {
    admitted(request, decision) {
      // A deferred Pod's placement is the controller's to make; it tells the model itself (expect).
      if (decision.required === undefined || decision.deferred !== undefined) return;
      const usage = admittedUsage(request.facts, decision.required);
      if (usage !== undefined) topology.assume!(usage);
    },
  };
}

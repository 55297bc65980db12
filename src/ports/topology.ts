// How the shell hands topology to the decisions: always a current snapshot,
// never a wait. Implemented from files and from a live API server (src/sources/topology/).

import type { KubeObject } from '../kube/types.ts';
import type { Occupancy, TopologySnapshot } from '../topology/model.ts';
import type { PendingUsage } from '../topology/read/pod-usage.ts';
import type { Readiness } from './readiness.ts';

export interface TopologyProvider {
  current(): TopologySnapshot;
  /** The bound Pods now (pack's free capacity): newer than current().pods when Pods bound since it was published. */
  occupancy(): Occupancy;
  readiness(): Readiness;
  /**
   * An object's next state, known before its watch brings it (the placement controller's own release): the model
   * takes it now; the watch's event for it later changes nothing more. Live models only.
   */
  expect?(source: 'pods', object: KubeObject): void;
  /**
   * A Pod just admitted held as `usage` (not a dry run): counted in the occupancy until its watch brings it, so
   * the next replica of a burst sees it (topology/assumed.ts). Live models only.
   */
  assume?(usage: PendingUsage): void;
  /** Called after each new snapshot is published. Returns an unsubscribe function. */
  subscribe(listener: (snapshot: TopologySnapshot) => void): () => void;
  stop(): Promise<void>;
}

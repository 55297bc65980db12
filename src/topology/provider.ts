// How the shell hands topology to the server: always a current snapshot,
// never a wait.

import type { TopologySnapshot } from './model.ts';

export interface Readiness {
  readonly ready: boolean;
  /** Why not ready, or what is degraded while ready. */
  readonly reason?: string;
}

export interface TopologyProvider {
  current(): TopologySnapshot;
  readiness(): Readiness;
  /** Called after each new snapshot is published. Returns an unsubscribe function. */
  subscribe(listener: (snapshot: TopologySnapshot) => void): () => void;
  stop(): Promise<void>;
}

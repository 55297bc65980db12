// How the shell hands policies to the decisions: always a current, versioned
// set. Implemented by the directory store and the cluster's objects (src/sources/policies/).

import type { SchedulingPolicy } from '../policy/types.ts';
import type { Readiness } from './readiness.ts';

export interface PolicyVersion {
  /** 0 until a set loads; then 1, 2, … for each set that differs from the one before. */
  readonly version: number;
  readonly policies: readonly SchedulingPolicy[];
}

export interface PolicyProvider {
  current(): PolicyVersion;
  readiness(): Readiness;
  /** Called with each new set. Returns an unsubscribe function. */
  onChange(listener: (set: PolicyVersion) => void): () => void;
  stop(): Promise<void>;
}

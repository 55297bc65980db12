// How decisions, logs and explain name the snapshot a decision was made on: by its content (the digest of the
// objects it was built from), so that the same inputs give the same id in every process and every run.

import type { TopologySnapshot } from './model.ts';

export function snapshotId(snapshot: TopologySnapshot): string {
  return snapshot.content;
}

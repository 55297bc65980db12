// How decisions, logs and explain name the snapshot a decision was made on:
// the process that built it and the snapshot's version there. Versions only
// count up within a process, so the process part (random per start) keeps
// two replicas' or two runs' ids apart.

import { randomBytes } from 'node:crypto';
import type { TopologySnapshot } from './model.ts';

const PROCESS = randomBytes(3).toString('hex');

export function snapshotId(snapshot: TopologySnapshot): string {
  return `${PROCESS}-${snapshot.version}`;
}

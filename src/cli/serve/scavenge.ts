// Once start-up is over, one thread does each of serve's young-generation collections (scavenges). What survives
// one is small, the requests of the turn in flight (0.1-0.3 MB under wrk -c25), and V8's parallel scavenger splits
// that copy among helper threads and makes the main thread wait for all of them: on a busy node they share the
// cores with other work (in the benchmark, the load tool), and in a container with a CPU limit they spend its
// quota. Start-up keeps the parallel scavenger: its lists (1.9 GB of JSON at 65,000 nodes) are what it is for.
// Figures in docs/benchmarks.md, "Sixteenth look".

import { setFlagsFromString } from 'node:v8';

export function scavengeOnOneThread(): void {
  setFlagsFromString('--no-parallel-scavenge');
}

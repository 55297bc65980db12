// The worker thread that reads policy files for isolated.ts: its heap is
// capped, and its memory goes back when it ends.

import { parentPort, workerData } from 'node:worker_threads';
import { loadPolicies } from './files.ts';

const { paths, cwd } = workerData as { paths: string[]; cwd: string };
parentPort!.postMessage(await loadPolicies(paths, { cwd }));

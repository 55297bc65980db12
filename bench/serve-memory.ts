// The webhook's own memory: `topogate serve` as its own process with a file
// topology, after it has answered a few hundred Pods, read from
// /proc/PID/status (Linux). Run as the manifests and the chart run it: with
// MALLOC_ARENA_MAX=2 (glibc's arenas otherwise multiply per thread).

import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTopogate, type HttpSetup } from './http.ts';
import { metricSum } from './metrics.ts';
import { fetchLocal } from './processes.ts';

export interface ServeMemory {
  readonly nodes: number;
  readonly policies: number;
  readonly topologyFileBytes: number;
  readonly requests: number;
  /** VmRSS and VmHWM (peak RSS) of the serve process, ~2 s after the last request. */
  readonly rssBytes: number;
  readonly peakRssBytes: number;
  /** V8's heap in use, from serve's own /metrics. */
  readonly heapUsedBytes: number;
}

/** Mutations sent one after another (each on a new connection), so that the request path's memory is in the figure. */
export const SERVE_MEMORY_REQUESTS = 300;
const SETTLE_MS = 2_000;
/** manifests/deployment.yaml and the chart set it for the container. */
export const SHIPPED_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/** A free loopback port: the HTTP benchmark's fixed ports may be in use by a run beside this one. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A field of /proc/PID/status (kB there), in bytes. */
export async function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(kilobytes) * 1024;
}

export async function measureServeMemory(setup: HttpSetup, requests = SERVE_MEMORY_REQUESTS): Promise<ServeMemory> {
  const body = await readFile(setup.bodyFile, 'utf8');
  const topologyFileBytes = (await readFile(setup.topologyFile)).byteLength;
  const server = await startTopogate(setup, [], await freePort(), SHIPPED_ENV);
  try {
    const pid = server.child.pid;
    if (pid === undefined) throw new Error('topogate serve has no pid');
    for (let i = 0; i < requests; i++) {
      const reply = await fetchLocal(server.port, '/mutate', body);
      if (reply.status !== 200) throw new Error(`/mutate answered ${reply.status}: ${reply.body.slice(0, 300)}`);
    }
    await sleep(SETTLE_MS);
    const heapUsedBytes = metricSum((await fetchLocal(server.port, '/metrics')).body, 'nodejs_heap_size_used_bytes');
    return {
      nodes: setup.nodes,
      policies: setup.policies,
      topologyFileBytes,
      requests,
      rssBytes: await statusBytes(pid, 'VmRSS'),
      peakRssBytes: await statusBytes(pid, 'VmHWM'),
      heapUsedBytes,
    };
  } finally {
    await server.stop();
  }
}

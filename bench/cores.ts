// Where the HTTP runs put their processes. In a cluster the API server and the
// webhook run apart; on this 2-core machine the load tool and the server
// would otherwise take turns on one core now and then, and each such spell
// costs the server with the larger working set (topogate's model and policies)
// more than the no-op. So each server's main thread runs on one core and the
// load tool on the other, alike for both sides; the servers' helper threads
// (GC, libuv) go where the kernel puts them, and their CPU still counts.

import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Cores {
  /** The servers' main threads. */
  readonly server: number;
  /** wrk and h2load. */
  readonly load: number;
}

/** Cores 0 and 1 on a machine of two or more; nothing to separate on one. */
export function httpCores(): Cores | undefined {
  return availableParallelism() >= 2 ? { server: 0, load: 1 } : undefined;
}

/** Puts the process's main thread (its thread id is its pid) on one core; its other threads stay free. */
export function pinMainThread(pid: number, cpu: number): void {
  execFileSync('taskset', ['-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** The command and arguments that run `command` on one core, or as given when `cpu` is undefined. */
export function onCore(cpu: number | undefined, command: string, args: readonly string[]): [string, string[]] {
  return cpu === undefined ? [command, [...args]] : ['taskset', ['-c', String(cpu), command, ...args]];
}

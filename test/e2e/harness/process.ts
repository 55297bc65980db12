// Control-plane processes: started detached (their own process group, output
// to a log file) so that `cluster up` can exit and leave them running, and
// stopped by pid.

import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Component {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logFile: string;
}

export function startDetached(component: Component): number {
  const log = openSync(component.logFile, 'a');
  try {
    const child = spawn(component.command, component.args, { detached: true, stdio: ['ignore', log, log] });
    child.unref();
    if (child.pid === undefined) throw new Error(`${component.name}: could not start ${component.command}`);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch {
    return false;
  }
}

// A child that exited but was not reaped yet still answers kill(pid, 0).
function isZombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL if the process has not gone after graceMs. */
export async function stopProcess(pid: number, graceMs = 10_000): Promise<void> {
  if (!signal(pid, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return;
    await sleep(50);
  }
  signal(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(50);
}

/** Guards against a recycled pid: true only while pid still runs command. */
export function runs(pid: number, command: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === command && isAlive(pid);
  } catch {
    return false;
  }
}

const owned = new Set<number>();
const ownedDirs = new Set<string>();
const ownedCleanups = new Set<() => void>();

/**
 * Ties a process's life to this one: it is SIGKILLed when this process exits
 * or is interrupted, so a test that dies early leaves no control plane behind.
 */
export function own(pid: number): void {
  guard();
  owned.add(pid);
}

export function disown(pid: number): void {
  owned.delete(pid);
}

/** A temp dir removed, after the owned processes are killed, when this process exits or is interrupted. */
export function ownDir(dir: string): void {
  guard();
  ownedDirs.add(dir);
}

export function disownDir(dir: string): void {
  ownedDirs.delete(dir);
}

/** A synchronous clean-up (the real nodes' processes and namespaces) run, before the dirs go, on an early exit. */
export function ownCleanup(cleanup: () => void): void {
  guard();
  ownedCleanups.add(cleanup);
}

export function disownCleanup(cleanup: () => void): void {
  ownedCleanups.delete(cleanup);
}

let guarded = false;

function guard(): void {
  if (guarded) return;
  guarded = true;
  const abandon = () => {
    owned.forEach((pid) => signal(pid, 'SIGKILL'));
    ownedCleanups.forEach((cleanup) => cleanup());
    ownedDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  };
  process.once('exit', abandon);
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    // Once, then the signal again: its default action (exit) is back by then.
    process.once(name, () => {
      abandon();
      process.kill(process.pid, name);
    });
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

export function logTail(logFile: string, lines = 30): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

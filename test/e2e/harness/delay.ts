// Delay between two zones, made in user space (this kernel has no netem): the router namespace's policy
// routing sends a delayed zone pair's packets into a TUN device, where the delayer (test/e2e/nodetools)
// holds each for half the round-trip delay and writes it back. Only the router namespace is touched.

import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sh } from './netns.ts';
import type { Zone } from './nodeplan.ts';
import { network, zonePrefix } from './nodeplan.ts';
import { isAlive } from './process.ts';

export interface Delayer {
  pid: number;
  readonly delaysFile: string;
  readonly logFile: string;
}

/** The largest round-trip delay accepted (the delayer holds at most 10 s one way). */
export const maxDelayMs = 10_000;

export function startDelayer(clusterDir: string, delayer: string): Delayer {
  const delaysFile = join(clusterDir, 'delays');
  const logFile = join(clusterDir, 'logs', 'delayer.log');
  writeFileSync(delaysFile, '');
  const log = openSync(logFile, 'a');
  try {
    const child = spawn(
      'nsenter',
      [`--net=/run/netns/${network.routerNetns}`, delayer, '-tun', network.delayTun, '-config', delaysFile],
      { detached: true, stdio: ['ignore', log, log] },
    );
    child.unref();
    if (child.pid === undefined) throw new Error('could not start the delayer');
    return { pid: child.pid, delaysFile, logFile };
  } finally {
    closeSync(log);
  }
}

/** Sets the round-trip delay between two zones (both ways: half each way); 0 removes it. */
export async function setDelay(delayer: Delayer, from: Zone, to: Zone, rttMs: number): Promise<void> {
  if (!Number.isFinite(rttMs) || rttMs < 0 || rttMs > maxDelayMs) {
    throw new Error(`the delay must be from 0 to ${maxDelayMs} ms, not ${rttMs}`);
  }
  if (!isAlive(delayer.pid)) throw new Error(`the delayer is not running (see ${delayer.logFile})`);
  const directions: Array<[string, string]> = [
    [zonePrefix(from), zonePrefix(to)],
    [zonePrefix(to), zonePrefix(from)],
  ];
  const delays = readDelays(delayer.delaysFile);
  for (const [src, dst] of directions) {
    if (rttMs === 0) delays.delete(`${src} ${dst}`);
    else delays.set(`${src} ${dst}`, Math.round((rttMs * 1000) / 2));
  }
  // Rules go last when adding (the delayer knows the pair first) and first when removing.
  if (rttMs === 0) for (const [src, dst] of directions) await removeRule(src, dst);
  writeFileSync(delayer.delaysFile, [...delays].map(([pair, micros]) => `${pair} ${micros}\n`).join(''));
  process.kill(delayer.pid, 'SIGHUP');
  if (rttMs > 0) for (const [src, dst] of directions) await addRule(src, dst);
}

function readDelays(file: string): Map<string, number> {
  const delays = new Map<string, number>();
  if (!existsSync(file)) return delays;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [src, dst, micros] = line.split(' ');
    if (src && dst && micros) delays.set(`${src} ${dst}`, Number(micros));
  }
  return delays;
}

function ruleArgs(src: string, dst: string): string[] {
  return ['from', `${src}.0.0/16`, 'to', `${dst}.0.0/16`, 'lookup', String(network.delayTable), 'pref', '200'];
}

async function removeRule(src: string, dst: string): Promise<void> {
  // Deleting until it fails: a rule added twice would otherwise stay.
  for (let i = 0; i < 4; i++) {
    const removed = await sh('ip', ['-n', network.routerNetns, 'rule', 'del', ...ruleArgs(src, dst)]).then(
      () => true,
      () => false,
    );
    if (!removed) return;
  }
}

async function addRule(src: string, dst: string): Promise<void> {
  await removeRule(src, dst);
  await sh('ip', ['-n', network.routerNetns, 'rule', 'add', ...ruleArgs(src, dst)]);
}

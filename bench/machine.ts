// The machine the numbers were measured on, stated with them.

import { cpus, totalmem, release, loadavg } from 'node:os';
import { interruptions, type Interruptions } from './floor.ts';

export interface Machine {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly node: string;
  readonly date: string;
  readonly loadAverage: readonly number[];
  /** What a busy thread loses to the host and kernel here, over one second of spinning at start. */
  readonly interruptions: Interruptions;
}

export function describeMachine(now = new Date()): Machine {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: release(),
    node: process.version,
    date: now.toISOString(),
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
    interruptions: interruptions(1000),
  };
}

// CPU time a process has used, all its threads (the GC's helpers too), from
// /proc/PID/stat. On a shared machine a server's throughput moves with what
// else runs; the CPU it spends per request barely does, so the HTTP section
// states both.

import { readFileSync } from 'node:fs';

/** Linux reports utime and stime in USER_HZ ticks, which is 100 on every architecture it runs on. */
const TICKS_PER_SECOND = 100;

/** User plus system CPU time of the process, in µs (10 ms resolution). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: the fields counted are those after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1e6) / TICKS_PER_SECOND;
}

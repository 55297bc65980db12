// The top self-time functions of a V8 .cpuprofile (as `node --cpu-prof`
// writes it), so the report can say what is in the way of a missed target.
//   node bench/profile.ts FILE.cpuprofile [TOP]

import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Hotspot {
  readonly name: string;
  readonly where: string;
  readonly selfMs: number;
  readonly percent: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function where(url: string, line: number): string {
  if (url === '') return '(native)';
  const path = url.startsWith('file://') ? relative(ROOT, fileURLToPath(url)) : url;
  return `${path}:${line + 1}`;
}

/**
 * Of the profiles `--cpu-prof` wrote into a directory (CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile), the
 * newest of a main thread (thread 0): serve's log transport runs in a worker thread of its own, whose profile,
 * written last, is not the one to read.
 */
export function mainThreadProfile(names: readonly string[]): string | undefined {
  return names
    .filter((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name))
    .sort()
    .at(-1);
}

export async function hotspots(file: string, top = 12): Promise<Hotspot[]> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const selfMicros = new Map<string, { name: string; where: string; micros: number }>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = frames.get(profile.samples[i]!);
    const delta = profile.timeDeltas[i] ?? 0;
    if (!frame || frame.functionName === '(idle)') continue;
    total += delta;
    const name = frame.functionName || '(anonymous)';
    const at = where(frame.url, frame.lineNumber);
    const key = `${name}@${at}`;
    const entry = selfMicros.get(key) ?? { name, where: at, micros: 0 };
    entry.micros += delta;
    selfMicros.set(key, entry);
  }
  return [...selfMicros.values()]
    .sort((a, b) => b.micros - a.micros)
    .slice(0, top)
    .map((entry) => ({
      name: entry.name,
      where: entry.where,
      selfMs: entry.micros / 1000,
      percent: total === 0 ? 0 : (100 * entry.micros) / total,
    }));
}

if (import.meta.main) {
  const [file, top = '12'] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/profile.ts FILE.cpuprofile [TOP]\n');
    process.exitCode = 2;
  } else {
    for (const spot of await hotspots(file, Number(top))) {
      process.stdout.write(
        `${spot.percent.toFixed(1).padStart(5)} %  ${spot.selfMs.toFixed(1).padStart(9)} ms  ${spot.name}  ${spot.where}\n`,
      );
    }
  }
}

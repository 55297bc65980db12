// After start-up, one thread does each of serve's scavenges: V8's parallel scavenger splits the copy among helper
// threads (docs/benchmarks.md, "Sixteenth look"). Read from V8's own trace of each scavenge, in a child process.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCAVENGE = new URL('../../../../src/cli/serve/scavenge.ts', import.meta.url).href;
/** The churn's last scavenges: loading the module (type stripping) may scavenge before the call. */
const LAST = 12;
/** What a thread books for a scavenge it does not copy in. */
const BOOKKEEPING_MS = 0.05;

// Keeps the last 20,000 objects made alive, so that every scavenge has something to copy.
const churn = `
const { scavengeOnOneThread } = await import(${JSON.stringify(SCAVENGE)});
scavengeOnOneThread();
const ring = new Array(20_000);
for (let i = 0; i < 800_000; i++) ring[i % ring.length] = { i, text: 'x'.repeat(i % 64), list: [i, i + 1] };
`;

const field = (line: string, name: string) => Number(new RegExp(`"${name}":([\\d.]+)`).exec(line)?.[1]);

test('after scavengeOnOneThread() no scavenge is split between threads', async () => {
  const { stdout } = await run(process.execPath, ['--trace-gc-nvp', '--input-type=module', '-e', churn], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const scavenges = stdout.split('\n').filter((line) => line.includes('"gc":"s"'));
  assert.ok(scavenges.length >= LAST + 3, `the churn made ${scavenges.length} scavenges`);
  // Its copying, in ms, by the main thread and by helpers: one of the two. A main thread that hands the one task to
  // a helper and waits still books a few µs; split, both usually take a share (without the call, every run had
  // several such scavenges, the smaller share 0.07-12 ms).
  const split = scavenges
    .slice(-LAST)
    .map((line) => [field(line, 'scavenge.parallel'), field(line, 'background.scavenge.parallel')] as const);
  assert.ok(
    split.every(([main, helpers]) => Math.min(main, helpers) < BOOKKEEPING_MS),
    `main thread / helpers, scavenge by scavenge: ${split.map((pair) => pair.join(' / ')).join(', ')}`,
  );
});

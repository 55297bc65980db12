import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hotspots, mainThreadProfile } from '../../../bench/profile.ts';

test('hotspots ranks functions by self time and leaves idle time out', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-profile-'));
  try {
    const frame = (functionName: string, lineNumber: number) => ({
      functionName,
      url: new URL('../../../src/policy/engine.ts', import.meta.url).href,
      lineNumber,
      scriptId: '1',
      columnNumber: 0,
    });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', -1), children: [2, 4] },
        { id: 2, callFrame: frame('decide', 20), children: [3] },
        { id: 3, callFrame: frame('match', 40) },
        { id: 4, callFrame: { ...frame('(idle)', -1), url: '' } },
      ],
      startTime: 0,
      endTime: 100,
      samples: [2, 3, 3, 3, 4, 4, 4, 4],
      timeDeltas: [1000, 2000, 2000, 2000, 5000, 5000, 5000, 5000],
    };
    const file = join(dir, 'test.cpuprofile');
    await writeFile(file, JSON.stringify(profile));
    const spots = await hotspots(file, 5);
    assert.deepEqual(
      spots.map((spot) => [spot.name, spot.selfMs, Math.round(spot.percent)]),
      [
        ['match', 6, 86],
        ['decide', 1, 14],
      ],
    );
    assert.equal(spots[0]!.where, 'src/policy/engine.ts:41');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the profile read is the main thread's newest, not a worker's written after it", () => {
  const names = [
    'CPU.20261206.005959.4242.0.001.cpuprofile',
    'CPU.20261206.010003.4242.0.003.cpuprofile',
    'CPU.20261206.010004.4242.1.004.cpuprofile',
    'CPU.20261206.010004.4242.12.005.cpuprofile',
    'notes.txt',
  ];
  assert.equal(mainThreadProfile(names), 'CPU.20261206.010003.4242.0.003.cpuprofile');
  assert.equal(mainThreadProfile(['CPU.20261206.010004.4242.1.004.cpuprofile']), undefined);
});

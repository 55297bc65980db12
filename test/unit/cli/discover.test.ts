// `topogate discover` in-process: files in, JSON or YAML out, exit codes, clear errors.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { main } from '../../../src/cli/main.ts';
import { readBounded } from '../../../src/cli/discover.ts';
import { DiscoverInputError } from '../../../src/discover/parse.ts';
import { syntheticFleet } from '../../../bench/discover-fleet.ts';

const dir = mkdtempSync(join(tmpdir(), 'topogate-discover-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const fleet = syntheticFleet({
  seed: 31,
  zones: 3,
  blocksPerZone: 2,
  racksPerBlock: 2,
  nodesPerRack: 6,
  wrongLabels: 0.05,
});
writeFileSync(join(dir, 'rtt.json'), JSON.stringify({ pairs: fleet.pairs }));
const nodeList = {
  apiVersion: 'v1',
  kind: 'NodeList',
  items: fleet.nodes.map(({ name, zone }) => ({
    kind: 'Node',
    metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
  })),
};
writeFileSync(join(dir, 'nodes.yaml'), `# kubectl get nodes -o yaml\n${JSON.stringify(nodeList)}\n`);
writeFileSync(join(dir, 'nodes.json'), JSON.stringify(nodeList));
writeFileSync(join(dir, 'broken.json'), '{"pairs": [');

async function run(...args: string[]) {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const chunks = { out: '', err: '' };
  stdout.on('data', (chunk) => (chunks.out += chunk));
  stderr.on('data', (chunk) => (chunks.err += chunk));
  const code = await main(['discover', ...args], { stdout, stderr, stdin: new PassThrough(), cwd: dir });
  return { code, ...chunks };
}

test('prints the levels, every node, the mislabeled nodes and how sure each level is', async () => {
  const { code, out, err } = await run('--rtt', 'rtt.json', '--nodes', 'nodes.yaml');
  assert.equal(err, '');
  assert.equal(code, 0);
  const result = JSON.parse(out);
  assert.equal(result.levels, 3);
  assert.deepEqual(Object.keys(result.nodes).sort(), [...fleet.names].sort());
  assert.deepEqual(result.mislabeled.map((entry: { node: string }) => entry.node).sort(), [...fleet.wrong].sort());
  assert.equal(result.tiers.length, 3);
  for (const tier of result.tiers) assert.ok(tier.confidence > 0.9);
  const fromJson = await run('--rtt', 'rtt.json', '--nodes', 'nodes.json');
  assert.deepEqual(JSON.parse(fromJson.out), result, 'kubectl get nodes -o json reads the same');
});

test('--output yaml says the same; --export prints one kind: List of the objects asked for', async () => {
  const json = JSON.parse((await run('--rtt', 'rtt.json')).out);
  assert.deepEqual(parse((await run('--rtt', 'rtt.json', '--output', 'yaml')).out), json);
  const { code, out } = await run('--rtt', 'rtt.json', '--export', 'kueue', '--export', 'labels', '--output', 'yaml');
  assert.equal(code, 0);
  const list = parse(out);
  assert.equal(list.kind, 'List');
  assert.deepEqual(
    list.items.map((item: { kind: string }) => item.kind),
    ['Topology', ...fleet.names.map(() => 'Node')],
  );
});

test('bad usage and bad input exit 2 with one clear line, and print nothing on stdout', async () => {
  const cases: [string[], RegExp][] = [
    [[], /--rtt FILE is required/],
    [['--rtt', 'missing.json'], /missing\.json: no such file/],
    [['--rtt', 'broken.json'], /broken\.json: not JSON/],
    [['--rtt', 'nodes.yaml'], /not JSON/],
    [['--rtt', 'rtt.json', '--output', 'xml'], /--output must be json or yaml, not "xml"/],
    [['--rtt', 'rtt.json', '--export', 'slurm'], /--export must be one of labels, kueue, volcano, not "slurm"/],
    [['--rtt', 'rtt.json', '--nodes', 'rtt.json'], /kind undefined is not Node/],
    [['--rtt', 'rtt.json', '--bogus'], /Unknown option '--bogus'/],
  ];
  for (const [args, message] of cases) {
    const { code, out, err } = await run(...args);
    assert.equal(code, 2, args.join(' '));
    assert.match(err, message);
    assert.equal(out, '');
  }
});

test('topogate --help lists discover, and discover --help its flags', async () => {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  let text = '';
  stdout.on('data', (chunk) => (text += chunk));
  await main(['--help'], { stdout, stderr, stdin: new PassThrough(), cwd: dir });
  assert.match(text, /discover +derives the topology/);
  const { code, out } = await run('--help');
  assert.equal(code, 0);
  for (const flag of ['--rtt FILE', '--nodes FILE', '--output json|yaml', '--export KIND'])
    assert.ok(out.includes(flag), flag);
});

test('a file past the limit is refused by its size, before it is read', async () => {
  await assert.rejects(
    readBounded(join(dir, 'rtt.json'), 1024),
    (error: unknown) =>
      error instanceof DiscoverInputError && /rtt\.json: \d+ bytes, more than the 1024/.test(error.message),
  );
  assert.equal(await readBounded(join(dir, 'broken.json'), 1024), '{"pairs": [');
});

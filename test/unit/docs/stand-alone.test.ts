// The project's docs stand alone for a user: no path outside the repository, no section numbers of a
// contract the user does not have, no notes about how the work went; what they show a command printing,
// the command prints; the command lines they show, the command accepts.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../cli/run.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** What users read: the pages, the chart, the manifests, the command's own sources (their help texts). */
function userFacing(): string[] {
  const under = (dir: string, ends: RegExp) =>
    (readdirSync(join(root, dir), { recursive: true }) as string[])
      .filter((file) => ends.test(file))
      .map((file) => join(dir, file));
  return [
    'README.md',
    'SECURITY.md',
    ...under('docs', /\.md$/),
    ...under('charts', /\.(md|yaml|txt|json|tpl)$/),
    ...under('manifests', /\.yaml$/),
    ...under('src', /\.ts$/),
  ];
}

const FORBIDDEN: readonly [RegExp, string][] = [
  [/\.\.\/shared\/|shared\/spec\//, 'a path outside the repository'],
  [/\b(collection|interface-v2|policy-v2)\.md\b|the collection spec/, 'a contract page the user does not have'],
  [/(spec|contract)[^\n]{0,40}§\s*\d/i, 'a section number of the contract'],
  [/ran out of time|out of time before/i, 'a note about how the work went'],
];

test('no user-facing file points at the contract outside the repository or at how the work went', () => {
  const found = userFacing().flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        FORBIDDEN.filter(([pattern]) => pattern.test(line)).map(([, why]) => `${file}:${index + 1}: ${why}`),
      ),
  );
  assert.deepEqual(found, []);
});

const run = (argv: string[]) => runCli(argv, root);

test('docs/policy.md shows what `topogate lint policies` prints', async () => {
  const ran = await run(['lint', 'policies']);
  assert.equal(ran.code, 0, ran.stderr);
  const summary = ran.stderr.trim().split('\n').at(-1)!;
  assert.match(summary, /^\d+ policies in \d+ files: no problems$/);
  const page = readFileSync(join(root, 'docs/policy.md'), 'utf8');
  assert.ok(page.includes(`$ npx topogate lint policies\n${summary}\n`), `docs/policy.md shows "${summary}"`);
});

test('no documented explain or mutate command gives --topology together with --kubeconfig, which they refuse', async () => {
  const refused = await run(['explain', '--topology', 'kube', '--kubeconfig', 'k', 'pod.yaml']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--topology and --kubeconfig exclude each other/);
  const pages = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => join('docs', name))].filter((file) =>
    file.endsWith('.md'),
  );
  const both = pages.flatMap((page) =>
    readFileSync(join(root, page), 'utf8')
      .split('\n')
      .filter(
        (line) => /topogate (explain|mutate)\b/.test(line) && /--topology\b/.test(line) && /--kubeconfig\b/.test(line),
      )
      .map((line) => `${relative(root, join(root, page))}: ${line.trim()}`),
  );
  assert.deepEqual(both, []);
});

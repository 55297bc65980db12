// The conventions eslint checks (eslint.config.js): YAML only through src/kube/yaml.ts, and no clock in the core
// or in the pure parts of probe/, controlplane/ and view/. src/ keeps them, and a planted line breaks each.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: root });
const RULES = new Set([
  'no-restricted-imports',
  'no-restricted-properties',
  'no-restricted-syntax',
  'no-restricted-globals',
]);
const found = (results: ESLint.LintResult[]) =>
  results.flatMap((result) =>
    result.messages
      .filter((message) => message.ruleId !== null && RULES.has(message.ruleId))
      .map((message) => `${result.filePath.replace(root, '')}: ${message.ruleId}`),
  );

test('src/ keeps the conventions', async () => {
  assert.deepEqual(found(await eslint.lintFiles(['src/'])), []);
});

test('a planted yaml import or clock read fails the lint where the convention holds, not in the shell', async () => {
  const cases: [text: string, file: string, rule: string | undefined][] = [
    [
      "import { stringify } from 'yaml';\nexport const out = stringify;\n",
      'src/cli/controlplane.ts',
      'no-restricted-imports',
    ],
    ["import { parse } from 'yaml';\nexport const read = parse;\n", 'src/policy/engine.ts', 'no-restricted-imports'],
    ["import type { Document } from 'yaml';\nexport type D = Document;\n", 'src/policy/parse.ts', undefined],
    ["import { stringify } from 'yaml';\nexport const out = stringify;\n", 'src/kube/yaml.ts', undefined],
    ['export const now = Date.now();\n', 'src/topology/model.ts', 'no-restricted-properties'],
    ['export const now = new Date();\n', 'src/discover/levels.ts', 'no-restricted-syntax'],
    ['export const at = new Date(0);\n', 'src/discover/levels.ts', undefined],
    ['export const now = performance.now();\n', 'src/probe/window.ts', 'no-restricted-properties'],
    ['setTimeout(() => undefined, 1);\n', 'src/controlplane/findings.ts', 'no-restricted-globals'],
    ['setInterval(() => undefined, 1);\n', 'src/view/history.ts', 'no-restricted-globals'],
    ['export const now = Date.now();\n', 'src/controlplane/shell/collector.ts', undefined],
    ['setTimeout(() => undefined, 1);\n', 'src/server/budget.ts', undefined],
  ];
  for (const [text, file, rule] of cases) {
    const seen = found(await eslint.lintText(text, { filePath: `${root}${file}` }));
    assert.deepEqual(seen, rule === undefined ? [] : [`${file}: ${rule}`], text);
  }
});

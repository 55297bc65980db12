// Strings other tools read are spelled once: the well-known node labels in src/kube/labels.ts, the topogate.dev
// API version in src/api/v1alpha1/resource.ts. src/ and bench/ import them; a quoted copy anywhere else fails here.
// Tests keep literals where they assert the wire format.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const SPELLED_ONCE =
  /(['"`])(topology\.kubernetes\.io\/(?:zone|region)|kubernetes\.io\/hostname|failure-domain\.beta\.kubernetes\.io\/zone|topogate\.dev\/v1alpha1)\1/g;

/** Where the strings are defined. */
const ALLOWED = new Set(['src/kube/labels.ts']);

/** `file:line: string` of every quoted copy in `text`. */
function copies(file: string, text: string): string[] {
  return [...text.matchAll(SPELLED_ONCE)].map(
    (match) => `${file}:${text.slice(0, match.index).split('\n').length}: ${match[2]}`,
  );
}

function typeScriptFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => relative(root, join(root, folder, path)));
}

test('src/ and bench/ spell the well-known labels and the API version only where they are defined', () => {
  const files = [...typeScriptFiles('src'), ...typeScriptFiles('bench')];
  assert.ok(files.length > 300, `${files.length} files read`);
  const found = files
    .filter((file) => !ALLOWED.has(file))
    .flatMap((file) => copies(file, readFileSync(join(root, file), 'utf8')));
  assert.deepEqual(found, []);
});

test('a quoted copy is found, in any quotes; a longer key or a mention in prose is not one', () => {
  const text = [
    "const zone = 'topology.kubernetes.io/zone';",
    'const host = "kubernetes.io/hostname";',
    'const version = `topogate.dev/v1alpha1`;',
    "const other = 'topology.kubernetes.io/zone-group';",
    '// nodes whose topology.kubernetes.io/zone label disagrees',
  ].join('\n');
  assert.deepEqual(copies('x.ts', text), [
    'x.ts:1: topology.kubernetes.io/zone',
    'x.ts:2: kubernetes.io/hostname',
    'x.ts:3: topogate.dev/v1alpha1',
  ]);
});

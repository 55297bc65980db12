// What a CLI user has: the npm package, not a checkout. Every relative link of the README and docs/ must
// land on a file the package ships, and the README must name each dependency `npm ci` warns about.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

function packedFiles(): Set<string> {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as [{ files: { path: string }[] }];
  return new Set(packed[0].files.map((file) => file.path));
}

/** Relative link targets, `[text](target)`, without their anchors, as paths from the package's root. */
function relativeLinks(file: string): string[] {
  return [...read(file).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.replace(/#.*$/, ''))
    .filter((target) => target !== '' && !/^[a-z]+:/.test(target))
    .map((target) => normalize(join(dirname(file), target)).replace(/\/$/, ''));
}

test('every relative link of README.md and docs/ lands on something the npm package ships', () => {
  const files = packedFiles();
  const shipped = (path: string) => files.has(path) || [...files].some((file) => file.startsWith(`${path}/`));
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  const dead = pages.flatMap((page) =>
    relativeLinks(page)
      .filter((path) => !shipped(path))
      .map((path) => `${page} → ${path}`),
  );
  assert.deepEqual(dead, []);
  assert.ok(files.has('docs/install.md') && files.has('examples/admission/pod-create-web.json'));
});

/** Whether a package's engines.node range (`^22.13||^24||>=26`, `>=22.19.0`) admits Node `major`. */
function admits(range: string, major: number): boolean {
  return range.split('||').some((alternative) => {
    const [, operator, low] = /^\s*(\^|~|>=|>)?\s*v?(\d+)/.exec(alternative) ?? [];
    if (low === undefined) return true;
    return operator === '>=' || operator === '>' ? Number(low) <= major : Number(low) === major;
  });
}

test('the README names every package `npm ci` warns about with EBADENGINE on the oldest Node topogate supports', () => {
  const oldest = Number(
    /\d+/.exec((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node)![0],
  );
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { engines?: { node?: string }; optional?: boolean }>;
  };
  const warned = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !entry.optional && entry.engines?.node !== undefined)
    .filter(([, entry]) => !admits(entry.engines!.node!, oldest))
    .map(([path]) => path.replace(/^.*node_modules\//, ''));
  assert.ok(warned.length > 0);
  const readme = read('README.md');
  assert.match(
    readme,
    new RegExp(`${['zero', 'one', 'two', 'three', 'four', 'five', 'six'][warned.length]} \`EBADENGINE\``),
  );
  for (const name of warned) assert.ok(readme.includes(`\`${name}\``), `README.md names ${name}`);
});

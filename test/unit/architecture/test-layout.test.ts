// Unit tests sit where the code they test sits: test/unit/<path>/ mirrors src/<path>/, so a module's tests are found
// by its path. A few folders mirror another tree of the repository, and a few test across all of src/; each is
// listed here with its reason, and any other folder is misplaced.

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const unit = join(root, 'test/unit');

/** Folders that mirror a tree other than src/: test/unit/<folder>/<rest> tests <tree>/<rest>. */
const OTHER_TREES: Readonly<Record<string, string>> = {
  bench: 'bench', // the benchmarks' own code (reports, statistics, the placement simulation)
  charts: 'charts', // the Helm chart against manifests/ and the metrics the code registers
  manifests: 'manifests', // the install manifests `topogate manifests` prints
  docs: 'docs', // the documentation's examples and that it stands alone
  harness: 'test/e2e/harness', // the e2e harness's pure parts, cheap enough for the unit suite
};

/** Folders whose tests follow a request through all of the core rather than one module. */
const CROSS_CUTTING: Readonly<Record<string, string>> = {
  architecture: 'the import graph and the conventions of all of src/',
  fuzz: 'generated Pods, policies and bytes through the whole decision path',
  golden: 'recorded decisions of the whole path, compared answer by answer',
};

/** A folder of this name holds the data of the tests in its parent folder. */
const DATA_FOLDER = 'fixtures';

/** The folders (relative to test/unit/, '/'-separated) that mirror nothing. */
function misplaced(folders: readonly string[], exists: (path: string) => boolean): string[] {
  return folders.filter((folder) => {
    const code = folder.endsWith(`/${DATA_FOLDER}`) ? folder.slice(0, -DATA_FOLDER.length - 1) : folder;
    if (code in CROSS_CUTTING) return false;
    const [first = '', ...rest] = code.split('/');
    const tree = OTHER_TREES[first];
    return !exists(tree === undefined ? join('src', code) : join(tree, ...rest));
  });
}

function fileFolders(dir: string): Set<string> {
  const folders = new Set<string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) folders.add(relative(dir, entry.parentPath).split('\\').join('/'));
  }
  return folders;
}

const inRepository = (path: string) => existsSync(join(root, path));

test('every folder of unit tests mirrors a folder of src/ (or a listed tree)', () => {
  const folders = [...fileFolders(unit)].filter((folder) => folder !== '');
  assert.ok(folders.length > 20, `${folders.length} folders found`);
  assert.deepEqual(misplaced(folders, inRepository), []);
});

test('a test folder with no counterpart is named, whatever tree it claims', () => {
  const planted = [
    'policy', // src/policy/
    'sources/policies', // src/sources/policies/
    'policies', // the store is src/sources/policies/, not src/policies/
    'topology/files', // src/topology/files.ts is a module, not a folder
    'discover/export/fixtures', // data beside src/discover/export/'s tests
    'discover/fixtures/deeper', // data folders hold data, not further tests
    'bench/placement', // bench/placement/
    'bench/nowhere',
    'harness', // test/e2e/harness/
    'fuzz',
    'fuzz/more', // cross-cutting is the folder itself
  ];
  assert.deepEqual(misplaced(planted, inRepository), [
    'policies',
    'topology/files',
    'discover/fixtures/deeper',
    'bench/nowhere',
    'fuzz/more',
  ]);
});

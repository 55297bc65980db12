// The dependency rules of .dependency-cruiser.cjs (docs/architecture.md): the
// real tree keeps them, and a tree that breaks each one is caught by name.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type IConfiguration } from 'dependency-cruiser';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as IConfiguration;

async function violations(baseDir: string): Promise<string[]> {
  const result = await cruise(['src'], {
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  });
  if (typeof result.output === 'string') assert.fail(result.output);
  return result.output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from}`).sort();
}

test('src/ keeps every layering rule', async () => {
  assert.deepEqual(await violations(root), []);
});

test('an arrow pointing back breaks the rule that names it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-layering-'));
  const files: Record<string, string> = {
    'src/kube/types.ts': "import type { Snapshot } from '../topology/model.ts';\nexport type Pod = Snapshot;\n",
    'src/topology/model.ts':
      "import type { Policy } from '../policy/types.ts';\nexport type Snapshot = { policy?: Policy };\n",
    'src/policy/types.ts':
      "import { readFileSync } from 'node:fs';\nimport type { Review } from '../admission/review.ts';\nexport type Policy = { review?: Review };\nexport const read = readFileSync;\n",
    'src/admission/review.ts':
      "import type { Provider } from '../ports/provider.ts';\nexport type Review = { provider?: Provider };\n",
    'src/ports/provider.ts':
      "import type { Server } from '../server/server.ts';\nexport type Provider = { server?: Server };\n",
    'src/server/server.ts':
      "import { usage } from '../cli/main.ts';\nexport type Server = { usage: string };\nexport const text = usage;\n",
    'src/api/v1alpha1/kind.ts':
      "import type { Snapshot } from '../../topology/model.ts';\nexport type Kind = { snapshot?: Snapshot };\n",
    'src/memo/kept.ts': "import type { Policy } from '../policy/types.ts';\nexport type Kept = { policy?: Policy };\n",
    'src/discover/levels.ts':
      "import type { Snapshot } from '../topology/model.ts';\nexport type Levels = { snapshot?: Snapshot };\n",
    'src/cli/main.ts':
      "import { name } from './name.ts';\nimport { shown } from '../view/shell/server.ts';\nexport const usage = name + shown;\n",
    'src/view/shell/server.ts':
      "import type { Status } from '../../controlplane/status.ts';\nimport { elect } from '../../kube-client/lease.ts';\nexport const shown = typeof elect + typeof ({} as Status);\n",
    'src/controlplane/status.ts': 'export type Status = { figures: number };\n',
    'src/kube-client/lease.ts': "import { watch } from '../sources/watch.ts';\nexport const elect = watch;\n",
    'src/sources/watch.ts': 'export const watch = 1;\n',
    'src/probe/window.ts': "import { connect } from 'node:net';\nexport const open = connect;\n",
    'src/view/history.ts': "import { Sampler } from './shell/sampler.ts';\nexport const sampler = Sampler;\n",
    'src/view/shell/sampler.ts': 'export const Sampler = 1;\n',
    'src/discover/clock.ts': "import { setTimeout } from 'node:timers/promises';\nexport const wait = setTimeout;\n",
    'src/cli/name.ts': "import type { usage } from './main.ts';\nexport const name: typeof usage = 'topogate';\n",
  };
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    assert.deepEqual(await violations(dir), [
      'api-over-kube-only: src/api/v1alpha1/kind.ts',
      'core-does-io: src/policy/types.ts',
      'core-imports-shell: src/admission/review.ts',
      'core-reads-clock: src/discover/clock.ts',
      'discover-over-kube-only: src/discover/levels.ts',
      'feature-imports-feature: src/view/shell/server.ts',
      'kube-client-over-core: src/kube-client/lease.ts',
      'kube-is-the-innermost: src/kube/types.ts',
      'memo-over-kube-only: src/memo/kept.ts',
      'no-circular: src/cli/main.ts',
      'nothing-imports-cli: src/server/server.ts',
      'policy-below-admission: src/policy/types.ts',
      'ports-over-core-types: src/ports/provider.ts',
      'pure-part-does-io: src/probe/window.ts',
      'pure-part-does-io: src/view/history.ts',
      'topology-below-policy: src/topology/model.ts',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

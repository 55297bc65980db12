// `npm run generate`: writes the files generated from the kinds of src/api/v1alpha1/ (generated.ts).
// `npm run generate -- --check` writes nothing and fails, naming them, when committed files differ (.ci/run).

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generatedFiles, staleFiles } from './generated.ts';

const repo = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, repo), 'utf8');
const crds = readdirSync(new URL('manifests/crds/', repo));

if (process.argv.includes('--check')) {
  const stale = staleFiles(read, crds);
  if (stale.length > 0) {
    console.error(`generated files differ from their source (run npm run generate):\n${stale.join('\n')}`);
    process.exit(1);
  }
} else {
  for (const [path, text] of generatedFiles(read, crds)) writeFileSync(new URL(path, repo), text);
}

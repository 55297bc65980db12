// Runs bin/topogate.ts where Node refuses to strip types itself: files under node_modules, which is
// where `npm install -g` puts topogate. A load hook strips this package's own .ts files (not its
// dependencies') with the same stripper Node uses, so positions in stack traces stay the same.
import { registerHooks, stripTypeScriptTypes } from 'node:module';

const packageRoot = new URL('../', import.meta.url).href;
const dependencies = new URL('../node_modules/', import.meta.url).href;

// stripTypeScriptTypes warns once that it is experimental; the user did not ask for it, so the
// first call, made here, warns no one.
const emitWarning = process.emitWarning;
process.emitWarning = () => {};
stripTypeScriptTypes('');
process.emitWarning = emitWarning;

registerHooks({
  load(url, context, nextLoad) {
    const ours = url.startsWith(packageRoot) && !url.startsWith(dependencies) && url.endsWith('.ts');
    if (!ours) return nextLoad(url, context);
    const loaded = nextLoad(url, context);
    return { format: 'module', source: stripTypeScriptTypes(String(loaded.source)), shortCircuit: true };
  },
});

await import('./topogate.ts');

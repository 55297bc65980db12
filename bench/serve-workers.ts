// `topogate serve` in N worker processes behind one listener (node:cluster:
// the primary accepts and hands connections round-robin), to measure whether
// a second process pays on this machine before serve grows a flag for it.
//   node bench/serve-workers.ts N SERVE_ARGS...
// Says 'ready' over IPC once every worker listens.

import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';

const TOPOGATE = fileURLToPath(new URL('../bin/topogate.ts', import.meta.url));
const [count = '2', ...serveArgs] = process.argv.slice(2);

cluster.setupPrimary({ exec: TOPOGATE, args: ['serve', ...serveArgs], silent: true });
let listening = 0;
cluster.on('listening', () => {
  if (++listening === Number(count)) process.send?.('ready');
});
cluster.on('exit', (worker, code, signal) => {
  if (!stopping) {
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code})\n`);
    process.exit(1);
  }
});
for (let i = 0; i < Number(count); i++) cluster.fork();

let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
  for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  cluster.disconnect(() => process.exit(0));
});

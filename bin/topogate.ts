#!/usr/bin/env node
import { main } from '../src/cli/main.ts';

// Every command is done when main resolves (serve and probe after their graceful stop); exiting then
// does not wait the ~30 s the Kubernetes client's idle keep-alive sockets would keep the process alive.
process.exit(await main(process.argv.slice(2)));

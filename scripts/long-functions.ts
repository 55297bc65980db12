// `node scripts/long-functions.ts [limit]`: every function in src/ longer than `limit` lines (60 by default),
// longest first, as `lines path:line name`. test/unit/architecture/function-length.test.ts holds src/ to 60.

import { longFunctions } from './function-lengths.ts';

const limit = Number(process.argv[2] ?? 60);
const long = longFunctions(new URL('../src/', import.meta.url), limit).sort((a, b) => b.lines - a.lines);
for (const fn of long) console.log(`${String(fn.lines).padStart(4)} ${fn.path}:${fn.line} ${fn.name}`);

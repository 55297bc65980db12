// A JSON-lines file as one Buffer per line, read in chunks: the recorded
// streams are larger than readFile (2 GiB) or a string can hold.

import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK = 64 << 20;
const NEWLINE = 0x0a;

export function readLines(file: string): Buffer[] {
  const fd = openSync(file, 'r');
  const lines: Buffer[] = [];
  let carry: Buffer | undefined;
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const read = readSync(fd, chunk, 0, CHUNK, null);
      if (read === 0) break;
      let data = chunk.subarray(0, read);
      if (carry) data = Buffer.concat([carry, data]);
      let start = 0;
      for (let end = data.indexOf(NEWLINE); end >= 0; end = data.indexOf(NEWLINE, start)) {
        if (end > start) lines.push(data.subarray(start, end));
        start = end + 1;
      }
      carry = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
    }
  } finally {
    closeSync(fd);
  }
  if (carry && carry.length > 0) lines.push(carry);
  return lines;
}

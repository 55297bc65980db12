// One bounded GET on a connection of its own (no pool: the writer asks each
// of up to thousands of agents once a period, so a kept connection per agent
// would only hold file descriptors and buffers between gathers). The answer
// is cut beyond maxBytes and the whole exchange beyond timeoutMs.

import { request } from 'node:http';

export interface Answer {
  readonly status: number;
  readonly body: string;
}

export function getBounded(
  host: string,
  port: number,
  path: string,
  timeoutMs: number,
  maxBytes: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host, port, path, agent: false, headers: { connection: 'close' } }, (response) => {
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > maxBytes) return fail(new Error(`an answer of ${declared} bytes, over ${maxBytes}`));
      const chunks: Buffer[] = [];
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length > maxBytes) fail(new Error(`an answer over ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      response.once('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks, length).toString('utf8') });
      });
      response.once('error', fail);
    });
    const timer = setTimeout(() => fail(new Error(`no whole answer within ${timeoutMs} ms`)), timeoutMs);
    function fail(error: Error) {
      clearTimeout(timer);
      outgoing.destroy();
      reject(error);
    }
    outgoing.once('error', fail);
    outgoing.end();
  });
}

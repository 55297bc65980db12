// Child processes of a benchmark: started, awaited until they answer, and
// always stopped, so a run leaves nothing behind.

import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Server {
  readonly name: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr (its last 64 KB). */
  stderr(): string;
  stop(): Promise<void>;
}

export function startServer(name: string, port: number, args: readonly string[], env: NodeJS.ProcessEnv = {}): Server {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { ...process.env, ...env },
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString('utf8')).slice(-65536);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    port,
    child,
    stderr: () => errors,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), sleep(10_000, false, { ref: false })]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

export interface Reply {
  readonly status: number;
  readonly body: string;
}

/** One HTTPS request on a fresh connection to 127.0.0.1 (the servers' certificates are self-signed). */
export function fetchLocal(port: number, path: string, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers:
          body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        rejectUnauthorized: false,
        agent: false,
        timeout: 5000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from 127.0.0.1:${port}${path} in 5 s`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Waits until `path` answers 200, for at most `timeoutMs`. */
export async function waitReady(server: Server, path: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null)
      throw new Error(`${server.name} exited with ${server.child.exitCode}: ${server.stderr().slice(-2000)}`);
    try {
      const reply = await fetchLocal(server.port, path);
      if (reply.status === 200) return;
      last = `${reply.status} ${reply.body.slice(0, 300)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`${server.name} not ready on ${path} after ${timeoutMs} ms: ${last}`);
}

// Runs one benchmark script in a fresh Node process and returns what it reports over IPC.

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function runChild<T>(script: string, job: object, execArgv: readonly string[], timeoutMs: number): Promise<T> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = fork(path, [JSON.stringify(job)], {
      execArgv: ['--expose-gc', ...execArgv],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    let report: T | undefined;
    let errors = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString('utf8')).slice(-8192);
    });
    child.on('message', (message) => {
      report = message as T;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (report !== undefined) resolve(report);
      else
        reject(
          new Error(
            `${script} ${JSON.stringify(job)} ended (${signal ?? code}) without a report${signal === 'SIGKILL' ? ` after ${timeoutMs} ms` : ''}:\n${errors}`,
          ),
        );
    });
  });
}

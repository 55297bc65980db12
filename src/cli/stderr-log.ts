// A one-shot command's log (shell): its warnings as the lines a CLI prints on
// stderr (`topogate snapshot: warning: …`), not serve's JSON, which belongs in
// a log pipeline and not between a user's prompt and the command's answer.

import { pino, type Logger } from 'pino';

const LABELS: Readonly<Record<number, string>> = { 40: 'warning', 50: 'error', 60: 'fatal' };

export function stderrLog(command: string, stderr: NodeJS.WritableStream): Logger {
  return pino(
    { level: 'warn' },
    {
      write(line: string) {
        const { level, msg } = JSON.parse(line) as { level: number; msg?: string };
        stderr.write(`topogate ${command}: ${LABELS[level] ?? 'warning'}: ${msg ?? ''}\n`);
      },
    },
  );
}

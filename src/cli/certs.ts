// `topogate certs`: a CA and a serving certificate for the webhook Service.

import { resolve } from 'node:path';
import { issueCertificates, nameProblem, subjectAltNames } from '../certs/issue.ts';
import { writeCertificates } from '../certs/write.ts';
import { certificateFiles } from '../kube/tls-secret.ts';
import type { Command } from './command.ts';
import { EXIT, parseFlags } from './command.ts';

const usage = `Usage: topogate certs --service S --namespace NS [--out DIR] [--localhost] [--days N]

Writes a new private CA and a serving certificate signed by it:
  ca.crt    the CA certificate (the webhook configuration's caBundle)
  tls.crt   the serving certificate, SANs S, S.NS, S.NS.svc, S.NS.svc.cluster.local
  tls.key   its RSA 2048 private key (mode 0600)
The CA's own key is not kept: to rotate, run again and update the caBundle.

Flags:
  --service S      the webhook's Service name (required)
  --namespace NS   the Service's namespace (required)
  --out DIR        where to write (default: the current directory)
  --localhost      also valid for localhost, 127.0.0.1 and ::1
  --days N         validity in days (default 365)
`;

export const certs: Command = {
  summary: 'writes a CA and a serving certificate for the webhook Service',
  usage,
  async run(args, io) {
    const parsed = parseFlags('certs', usage, io, {
      args: [...args],
      options: {
        service: { type: 'string' },
        namespace: { type: 'string' },
        out: { type: 'string', default: '.' },
        localhost: { type: 'boolean', default: false },
        days: { type: 'string', default: '365' },
      },
    });
    if (parsed === undefined) return EXIT.usage;
    const { service, namespace, out, localhost, days } = parsed.values;
    const validDays = Number(days);
    const problem =
      (service === undefined ? '--service is required' : nameProblem('--service', service)) ??
      (namespace === undefined ? '--namespace is required' : nameProblem('--namespace', namespace)) ??
      (Number.isInteger(validDays) && validDays > 0
        ? undefined
        : `--days must be a positive whole number, not "${days}"`);
    if (problem !== undefined || service === undefined || namespace === undefined) {
      io.stderr.write(`topogate certs: ${problem}\n\n${usage}`);
      return EXIT.usage;
    }
    const dir = resolve(io.cwd, out);
    try {
      await writeCertificates(dir, issueCertificates({ service, namespace, localhost, validDays }));
    } catch (error) {
      io.stderr.write(`topogate certs: cannot write to ${dir}: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    const { dns, ips } = subjectAltNames({ service, namespace, localhost });
    io.stdout.write(
      `wrote ${Object.values(certificateFiles).join(', ')} to ${dir}\nserving certificate for ${[...dns, ...ips].join(', ')}\n`,
    );
    return EXIT.ok;
  },
};

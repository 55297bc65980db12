// First start: no key pair at all in the directory (a README may be there) makes one. A lone half is the
// user's, and left alone. The default directory is inside the package, which an image's read-only root
// (or a global install owned by root) cannot take: then the pair is made in the fallback, a temporary
// directory, and said so.

import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { writeCertificates } from '../../certs/write.ts';
import { certificateFiles } from '../../kube/tls-secret.ts';

/** Makes the pair when both halves are missing; the directory serve then reads it from. */
export async function ensureCertificates(certDir: string, log: Logger, fallbackDir?: string): Promise<string> {
  const present = await presentHalves(certDir);
  if (present === 'both') return certDir;
  if (present !== 'none') throw new Error(`${certDir} holds ${present}: give both, or neither to have them made`);
  try {
    await makeCertificates(certDir, log);
    return certDir;
  } catch (error) {
    if (fallbackDir === undefined || !unwritable(error)) throw error;
    log.info({ certDir, error: (error as Error).message }, `${certDir} cannot be written: using ${fallbackDir}`);
    return ensureCertificates(fallbackDir, log);
  }
}

async function presentHalves(certDir: string): Promise<'both' | 'none' | string> {
  const pair = [certificateFiles.tlsCert, certificateFiles.tlsKey];
  const present = await Promise.all(
    pair.map((file) =>
      access(join(certDir, file)).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (present.every(Boolean)) return 'both';
  if (!present.some(Boolean)) return 'none';
  return `${pair.filter((_, index) => present[index]).join('')} without ${pair.filter((_, index) => !present[index]).join('')}`;
}

async function makeCertificates(certDir: string, log: Logger): Promise<void> {
  // node-forge (2-3 MB of RSS in serve) is needed only to make them.
  const { issueCertificates } = await import('../../certs/issue.ts');
  await writeCertificates(
    certDir,
    issueCertificates({ service: 'topogate', namespace: 'topogate-system', localhost: true }),
  );
  log.info(
    { certDir, ca: join(certDir, certificateFiles.caCert) },
    'no certificate found: made a CA and a serving certificate for localhost and the topogate Service',
  );
}

const UNWRITABLE = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOENT', 'ENOTDIR']);

/** A read-only filesystem, or a directory this user may not create or write. */
function unwritable(error: unknown): boolean {
  return UNWRITABLE.has((error as NodeJS.ErrnoException).code ?? '');
}

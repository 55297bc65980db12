// First start: no key pair at all in the directory (a README may be there) makes one. A lone half is the
// user's, and left alone.

import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { certificateFiles, writeCertificates } from '../../certs/write.ts';

export async function ensureCertificates(certDir: string, log: Logger): Promise<void> {
  const pair = [certificateFiles.tlsCert, certificateFiles.tlsKey];
  const present = await Promise.all(
    pair.map((file) =>
      access(join(certDir, file)).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (present.every(Boolean)) return;
  if (present.some(Boolean))
    throw new Error(
      `${certDir} holds ${pair.filter((_, index) => present[index]).join('')} without ${pair.filter((_, index) => !present[index]).join('')}: give both, or neither to have them made`,
    );
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

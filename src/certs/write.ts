// Writes a certificate set as a Kubernetes TLS Secret lays it out. Each file
// is written whole and renamed into place, so a watcher never reads half a
// file; the key is readable by its owner only.

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { certificateFiles } from '../kube/tls-secret.ts';
import type { CertificateSet } from './issue.ts';

export async function writeCertificates(dir: string, set: CertificateSet): Promise<void> {
  await mkdir(dir, { recursive: true });
  // Between two renames a reader sees a key and a certificate that do not
  // match; the server's reloader waits for a matching pair.
  await writeAtomically(join(dir, certificateFiles.tlsKey), set.tlsKey, 0o600);
  await writeAtomically(join(dir, certificateFiles.tlsCert), set.tlsCert, 0o644);
  await writeAtomically(join(dir, certificateFiles.caCert), set.caCert, 0o644);
}

async function writeAtomically(path: string, content: string, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, path);
}

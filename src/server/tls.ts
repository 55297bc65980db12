// TLS settings and the serving key pair. Mozilla's "intermediate" TLS 1.2
// suites (forward secret AEAD only) and TLS 1.3: the API server's Go client
// speaks all of them.

import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { certificateFiles } from '../certs/write.ts';

export const tlsSettings = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  honorCipherOrder: true,
} as const satisfies SecureContextOptions;

export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

export async function readKeyPair(dir: string): Promise<KeyPair> {
  const [cert, key] = await Promise.all([
    readFile(join(dir, certificateFiles.tlsCert), 'utf8'),
    readFile(join(dir, certificateFiles.tlsKey), 'utf8'),
  ]);
  return { cert, key };
}

/** Why the pair cannot serve (unparsable, or the key is not the certificate's), or undefined. */
export function keyPairProblem(pair: KeyPair): string | undefined {
  try {
    createSecureContext({ ...tlsSettings, ...pair });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Epoch seconds at which the certificate expires. */
export function expiresAt(pair: KeyPair): number {
  return Date.parse(new X509Certificate(pair.cert).validTo) / 1000;
}

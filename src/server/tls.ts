// TLS settings and the serving key pair. Mozilla's "intermediate" TLS 1.2
// suites (forward secret AEAD only) and TLS 1.3: the API server's Go client
// speaks all of them.

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { certificateFiles } from '../kube/tls-secret.ts';

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

/**
 * Why the pair cannot serve, or undefined. OpenSSL takes an empty certificate and key without a word (and then
 * fails every handshake), so each half is parsed on its own and the key checked against the certificate first.
 */
export function keyPairProblem(pair: KeyPair): string | undefined {
  if (pair.cert.trim() === '') return `${certificateFiles.tlsCert} is empty`;
  if (pair.key.trim() === '') return `${certificateFiles.tlsKey} is empty`;
  try {
    const certificate = new X509Certificate(pair.cert);
    if (!certificate.checkPrivateKey(createPrivateKey(pair.key)))
      return `${certificateFiles.tlsKey} is not the key of ${certificateFiles.tlsCert}`;
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

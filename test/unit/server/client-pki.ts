// Client certificates as an admin's PKI would make them, with node-forge: a
// CA and one client certificate it signed (extended key usage clientAuth).
// Keys come from Node's crypto, which is much faster than forge's RSA.

import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface ClientPem {
  readonly cert: string;
  readonly key: string;
}

function keyPair(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey; pem: string } {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), pem: privateKey };
}

function certificate(
  subject: string,
  key: forge.pki.PublicKey,
  issuer: { name: string; key: forge.pki.rsa.PrivateKey },
  serial: string,
  ca: boolean,
): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = key;
  cert.serialNumber = serial;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3_600_000);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  cert.setIssuer([{ name: 'commonName', value: issuer.name }]);
  cert.setExtensions(
    ca
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, critical: true },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
          { name: 'extKeyUsage', clientAuth: true },
        ],
  );
  cert.sign(issuer.key, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** A CA named `caName` and one client certificate for `clientName` it signed. */
export function clientPki(caName: string, clientName: string): { caCert: string; client: ClientPem } {
  const ca = keyPair();
  const caCert = certificate(caName, ca.publicKey, { name: caName, key: ca.privateKey }, '01', true);
  const client = keyPair();
  return {
    caCert,
    client: {
      cert: certificate(clientName, client.publicKey, { name: caName, key: ca.privateKey }, '02', false),
      key: client.pem,
    },
  };
}

// A private CA and a serving certificate for the webhook's Service, made with
// node-forge (RSA 2048: forge has no ECDSA). The CA key is not returned: it
// signs once and is dropped, so nothing on disk can mint more certificates;
// rotating means issuing a new set and a new caBundle.

import { randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface CertificateRequest {
  readonly service: string;
  readonly namespace: string;
  /** Also valid for localhost, 127.0.0.1 and ::1 (a webhook run outside the cluster). */
  readonly localhost?: boolean;
  readonly validDays?: number;
  readonly now?: Date;
}

export interface CertificateSet {
  /** PEM, the caBundle of the webhook configuration. */
  readonly caCert: string;
  readonly tlsCert: string;
  readonly tlsKey: string;
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Why a Service or namespace name cannot be used, or undefined. */
export function nameProblem(what: string, name: string): string | undefined {
  if (name.length <= 63 && dnsLabel.test(name)) return undefined;
  return `${what} "${name}" is not a DNS label (lower-case letters, digits and "-", at most 63, starting and ending with a letter or digit)`;
}

export function subjectAltNames({ service, namespace, localhost = false }: CertificateRequest): { dns: string[]; ips: string[] } {
  const dns = [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
  return localhost ? { dns: [...dns, 'localhost'], ips: ['127.0.0.1', '::1'] } : { dns, ips: [] };
}

export function issueCertificates(request: CertificateRequest): CertificateSet {
  const now = request.now ?? new Date();
  const validDays = request.validDays ?? 365;
  const caKeys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  // No '@' in the name: forge writes it as a PrintableString, and the API server (Go's x509) rejects that CA.
  const ca = certificate(caKeys.publicKey, [{ name: 'commonName', value: `topogate-ca-${Math.floor(now.getTime() / 1000)}` }], now, validDays);
  ca.setIssuer(ca.subject.attributes);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const { dns, ips } = subjectAltNames(request);
  const servingKeys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const serving = certificate(servingKeys.publicKey, [{ name: 'commonName', value: `${request.service}.${request.namespace}.svc` }], now, validDays);
  serving.setIssuer(ca.subject.attributes);
  serving.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [...dns.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))] },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  serving.sign(caKeys.privateKey, forge.md.sha256.create());

  return {
    caCert: forge.pki.certificateToPem(ca),
    tlsCert: forge.pki.certificateToPem(serving),
    tlsKey: forge.pki.privateKeyToPem(servingKeys.privateKey),
  };
}

function certificate(publicKey: forge.pki.PublicKey, subject: forge.pki.CertificateField[], now: Date, validDays: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive serial: the leading byte keeps the DER integer's sign bit clear.
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  // Backdated a little so a node whose clock lags still accepts it.
  cert.validity.notBefore = new Date(now.getTime() - 5 * 60_000);
  cert.validity.notAfter = new Date(now.getTime() + validDays * 86_400_000);
  cert.setSubject(subject);
  return cert;
}

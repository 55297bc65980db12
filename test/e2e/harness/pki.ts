// The cluster's certificates: one CA that signs the serving certificates (API
// server, scheduler, controller manager), the client certificates of the admin,
// the scheduler and the controller manager, and the service-account signing key. Keys come from Node's native generator;
// node-forge only assembles the X.509 certificates.

import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface KeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface ClusterPki {
  readonly ca: KeyPair;
  readonly apiServer: KeyPair;
  readonly admin: KeyPair;
  readonly scheduler: KeyPair;
  readonly controllerManager: KeyPair;
  /** The scheduler's and controller manager's secure ports (127.0.0.1), so a metrics reader can verify them. */
  readonly loopbackServing: KeyPair;
  readonly serviceAccount: { readonly publicPem: string; readonly privatePem: string };
}

/** The first address of the service range: the `kubernetes` Service's ClusterIP. */
export const kubernetesServiceIp = '10.0.0.1';

/** extraIps: more addresses the API server is reached at (the host's link to the real nodes). */
export function createClusterPki(extraIps: readonly string[] = []): ClusterPki {
  const ca = issue({ commonName: 'topogate-e2e-ca', isCa: true });
  const apiServer = issue({
    commonName: 'kube-apiserver',
    signer: ca,
    serverAltNames: {
      ips: ['127.0.0.1', '::1', kubernetesServiceIp, ...extraIps],
      dns: [
        'localhost',
        'kubernetes',
        'kubernetes.default',
        'kubernetes.default.svc',
        'kubernetes.default.svc.cluster.local',
      ],
    },
  });
  // system:masters is the group the API server grants everything to.
  const admin = issue({ commonName: 'topogate-e2e-admin', organization: 'system:masters', signer: ca });
  // The user the default RBAC bindings (system:kube-scheduler) are made for.
  const scheduler = issue({ commonName: 'system:kube-scheduler', signer: ca });
  const controllerManager = issue({ commonName: 'system:kube-controller-manager', signer: ca });
  const loopbackServing = issue({
    commonName: 'topogate-e2e-loopback',
    signer: ca,
    serverAltNames: { ips: ['127.0.0.1', '::1'], dns: ['localhost'] },
  });
  const serviceAccount = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    ca,
    apiServer,
    admin,
    scheduler,
    controllerManager,
    loopbackServing,
    serviceAccount: {
      publicPem: serviceAccount.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      privatePem: serviceAccount.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    },
  };
}

/** A client certificate signed by the cluster CA: a kubelet's (CN=system:node:<name>, O=system:nodes) or kube-proxy's. */
export function issueClient(ca: KeyPair, commonName: string, organization?: string): KeyPair {
  return issue({ commonName, signer: ca, ...(organization ? { organization } : {}) });
}

/** A CA of its own and a certificate it signs for serving on loopback: for a webhook the API server calls by URL. */
export function createLoopbackServing(commonName: string): { readonly ca: KeyPair; readonly serving: KeyPair } {
  const ca = issue({ commonName: `${commonName}-ca`, isCa: true });
  const serverAltNames = { ips: ['127.0.0.1', '::1'], dns: ['localhost'] };
  return { ca, serving: issue({ commonName, signer: ca, serverAltNames }) };
}

interface IssueRequest {
  readonly commonName: string;
  readonly organization?: string;
  readonly isCa?: boolean;
  readonly signer?: KeyPair;
  readonly serverAltNames?: { readonly ips: readonly string[]; readonly dns: readonly string[] };
}

function issue(request: IssueRequest): KeyPair {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
  const now = Date.now();
  // An hour of slack for clock skew; a week is far longer than any cluster here lives.
  cert.validity.notBefore = new Date(now - 3_600_000);
  cert.validity.notAfter = new Date(now + 7 * 86_400_000);
  const subject = [{ name: 'commonName', value: request.commonName }];
  if (request.organization) subject.push({ name: 'organizationName', value: request.organization });
  cert.setSubject(subject);
  cert.setIssuer(request.signer ? forge.pki.certificateFromPem(request.signer.certPem).subject.attributes : subject);
  cert.setExtensions(extensions(request));
  const signingKeyPem = request.signer?.keyPem ?? keyPem;
  cert.sign(forge.pki.privateKeyFromPem(signingKeyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem };
}

function extensions(request: IssueRequest): object[] {
  if (request.isCa) {
    return [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ];
  }
  const common = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
  ];
  if (!request.serverAltNames) return [...common, { name: 'extKeyUsage', clientAuth: true }];
  const altNames = [
    ...request.serverAltNames.dns.map((value) => ({ type: 2, value })),
    ...request.serverAltNames.ips.map((ip) => ({ type: 7, ip })),
  ];
  return [...common, { name: 'extKeyUsage', serverAuth: true }, { name: 'subjectAltName', altNames }];
}

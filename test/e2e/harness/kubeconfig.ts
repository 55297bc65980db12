// A self-contained kubeconfig (certificates inlined), for kubectl, the
// scheduler and @kubernetes/client-node alike.

import { stringify } from 'yaml';

export interface KubeconfigUser {
  readonly name: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export function kubeconfigYaml(server: string, caPem: string, user: KubeconfigUser): string {
  const base64 = (pem: string) => Buffer.from(pem).toString('base64');
  const context = `${user.name}@topogate-e2e`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'topogate-e2e', cluster: { server, 'certificate-authority-data': base64(caPem) } }],
    users: [
      {
        name: user.name,
        user: { 'client-certificate-data': base64(user.certPem), 'client-key-data': base64(user.keyPem) },
      },
    ],
    contexts: [{ name: context, context: { cluster: 'topogate-e2e', user: user.name } }],
    'current-context': context,
  });
}

// A kubeconfig for a fake API server on loopback (plain HTTP, no credentials).

import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export function loopbackKubeConfig(server: Server): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      { name: 'fake', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
    ],
    users: [{ name: 'fake' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
    currentContext: 'fake',
  });
  return config;
}

/** The same, as a kubeconfig file in `dir` (for createKubeTopology, which reads one): its path. */
export function loopbackKubeConfigFile(server: string, dir: string): string {
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'fake', user: {} }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake' } }],
      'current-context': 'fake',
    }),
  );
  return path;
}

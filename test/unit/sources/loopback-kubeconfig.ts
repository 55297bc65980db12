// A kubeconfig for a fake API server on loopback (plain HTTP, no credentials).

import type { Server } from 'node:http';
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

// The KubeConfig every part of topogate talks to the API server with. @kubernetes/client-node 2.0
// gives each API call a new undici Agent, so no connection is ever reused: every Lease renewal,
// status write, list and metrics scrape pays a TLS handshake and a new SecureContext, milliseconds
// of the event loop that admission requests wait behind. This one keeps an Agent per cluster and
// user (as client-node's own watches keep their https.Agent), so calls share kept-alive connections.

import { KubeConfig } from '@kubernetes/client-node';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];
type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/** Cluster and user pairs remembered; a kubeconfig has one in use, a switch of context another. */
const KEPT = 4;

class ConnectionReusingKubeConfig extends KubeConfig {
  readonly #dispatchers = new Map<string, Dispatcher>();

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const made = context.getDispatcher();
    if (made === undefined) return;
    const key = JSON.stringify([this.getCurrentCluster(), this.getCurrentUser()]);
    const kept = this.#dispatchers.get(key);
    // The Agent just made has opened nothing yet: unused, it is garbage like any object.
    if (kept !== undefined) return context.setDispatcher(kept);
    this.#dispatchers.set(key, made);
    if (this.#dispatchers.size > KEPT) {
      const [oldest, dispatcher] = this.#dispatchers.entries().next().value!;
      this.#dispatchers.delete(oldest);
      // Its kept-alive sockets close; a failure to close them must not become an unhandled rejection.
      dispatcher.close().catch(() => undefined);
    }
  }
}

/** The kubeconfig file given, else the default one (KUBECONFIG, ~/.kube/config, or in-cluster). */
export function loadKubeConfig(file: string | undefined): KubeConfig {
  const config = new ConnectionReusingKubeConfig();
  if (file) config.loadFromFile(file);
  else config.loadFromDefault();
  return config;
}

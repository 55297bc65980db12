// The informer over unbound Pods (field selector spec.nodeName=, as the scheduler does).

import type { CoreV1Api, KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { BackoffOptions } from '../kube-client/backoff.ts';
import { Informer } from '../kube-client/informer.ts';

export interface UnboundPodsOptions {
  readonly config: KubeConfig;
  readonly core: CoreV1Api;
  readonly log: Logger;
  readonly relistBackoff: BackoffOptions | undefined;
  /** A Pod added or changed. */
  readonly seen: (pod: KubernetesObject) => void;
  readonly deleted: (pod: KubernetesObject) => void;
  /** A failed list or a broken watch: the relist will find every Pod again. */
  readonly failed: () => void;
}

export function watchUnboundPods(options: UnboundPodsOptions): Informer<KubernetesObject> {
  const { config, core, log, relistBackoff, seen, deleted, failed } = options;
  const informer = new Informer<KubernetesObject>({
    config,
    path: '/api/v1/pods',
    fieldSelector: 'spec.nodeName=',
    list: async () => {
      const list = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=' });
      // Typed objects (Dates) back to the JSON the engine and the patch read.
      const items = JSON.parse(JSON.stringify(list.items)) as KubernetesObject[];
      return { ...list, items: items.map((item) => ({ apiVersion: 'v1', kind: 'Pod', ...item })) };
    },
    ...(relistBackoff !== undefined && { backoff: relistBackoff }),
    title: 'watching unbound Pods',
    log,
    onEvent: (type, object) => (type === 'DELETED' ? deleted(object) : seen(object)),
    onFailure: () => void failed(),
  });
  informer.start();
  return informer;
}

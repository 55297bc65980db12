// An Event on a released Pod (shell): news, not state, so a failure is only logged.

import type { CoreV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Pod } from '../kube/types.ts';
import { describeKubeError } from '../kube-client/errors.ts';
import type { PodEvent } from './release.ts';

/** `instance`: the replica that released the Pod (the Lease holder's identity). */
export async function recordPodEvent(
  core: CoreV1Api,
  log: Logger,
  instance: string,
  pod: Pod,
  event: PodEvent,
): Promise<void> {
  const metadata = pod.metadata ?? {};
  const now = new Date();
  try {
    await core.createNamespacedEvent({
      namespace: String(metadata.namespace),
      body: {
        metadata: { generateName: `${String(metadata.name)}.` },
        involvedObject: {
          apiVersion: 'v1',
          kind: 'Pod',
          name: String(metadata.name),
          namespace: String(metadata.namespace),
          uid: String(metadata.uid),
        },
        type: event.type,
        reason: event.reason,
        message: event.message.slice(0, 1024),
        source: { component: 'topogate' },
        reportingComponent: 'topogate.dev/placement',
        reportingInstance: instance,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
  } catch (error) {
    log.warn({ pod: metadata.name }, `recording an Event failed: ${describeKubeError(error)}`);
  }
}

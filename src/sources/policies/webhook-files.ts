// The policy files the running webhook serves, read from the cluster (shell), so that the cluster
// commands (explain pod/…, audit, mutate --kubeconfig) decide with the same policies as serve without
// being handed a copy: the MutatingWebhookConfiguration's webhook names the Service topogate runs
// behind, and the chart and manifests/ both mount the ConfigMap `<that Service>-policies` of the same
// namespace as serve's --policies directory.

import { AdmissionregistrationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { parsePolicies, uniqueNames, type PolicySet } from '../../policy/parse.ts';
import { describeKubeError, statusOf } from '../../kube-client/errors.ts';

/** The webhook's name in topogate's MutatingWebhookConfiguration (manifests/webhook.yaml, the chart's). */
export const WEBHOOK_NAME = 'pods.topogate.dev';
const POLICY_KEY = /\.(ya?ml|json)$/;

export type WebhookPolicyFiles =
  | { readonly configMap: string; readonly set: PolicySet }
  /** Why there are none: no such webhook, no ConfigMap, or no right to read it. */
  | { readonly missing: string };

export async function readWebhookPolicyFiles(
  config: KubeConfig,
  webhookName = WEBHOOK_NAME,
): Promise<WebhookPolicyFiles> {
  let service: { namespace: string; name: string } | undefined;
  try {
    const configurations = await config.makeApiClient(AdmissionregistrationV1Api).listMutatingWebhookConfiguration();
    service = configurations.items
      .toSorted((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
      .flatMap((configuration) => configuration.webhooks ?? [])
      .find((webhook) => webhook.name === webhookName && webhook.clientConfig.service !== undefined)
      ?.clientConfig.service;
  } catch (error) {
    return { missing: `the webhook configurations could not be listed: ${describeKubeError(error)}` };
  }
  if (service === undefined) return { missing: `no MutatingWebhookConfiguration calls a Service as ${webhookName}` };
  const configMap = `${service.namespace}/${service.name}-policies`;
  let data: Record<string, string>;
  try {
    const read = await config
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ namespace: service.namespace, name: `${service.name}-policies` });
    data = read.data ?? {};
  } catch (error) {
    return {
      missing:
        statusOf(error) === 404
          ? `the ConfigMap ${configMap}, which holds the webhook's policy files, does not exist`
          : `the ConfigMap ${configMap} could not be read: ${describeKubeError(error)}`,
    };
  }
  // Keys as serve sees the mounted files: policy files by extension, in name order.
  const parsed = Object.keys(data)
    .filter((key) => POLICY_KEY.test(key) && !key.startsWith('.'))
    .sort()
    .map((key) => parsePolicies(data[key]!, `ConfigMap/${configMap}/${key}`));
  const unique = uniqueNames(parsed.flatMap((set) => set.policies));
  return {
    configMap,
    set: { policies: unique.policies, errors: [...parsed.flatMap((set) => set.errors), ...unique.errors] },
  };
}

// SchedulingPolicy objects as the API server gives them, for the cluster policy tests.

import type { KubeObject } from '../../../src/kube/types.ts';

export const nvme = { rules: { nodeLabels: { required: [{ key: 'disk', operator: 'In', values: ['nvme'] }] } } };
export const ssd = { rules: { nodeLabels: { required: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } } };
/** Accepted by the CRD's schema (a label value, an integer by its CEL rule), refused by the loader: not an int64. */
export const tooBig = {
  rules: { nodeLabels: { required: [{ key: 'gpus', operator: 'Gt', values: ['99999999999999999999'] }] } },
};
export const tooBigError =
  'spec.rules.nodeLabels.required[0].values[0]: "99999999999999999999" is not an integer (operator Gt)';

export function policyObject(name: string, spec: object, resourceVersion?: string): KubeObject {
  return {
    apiVersion: 'topogate.dev/v1alpha1',
    kind: 'SchedulingPolicy',
    metadata: { name, uid: `uid-${name}`, generation: 1, ...(resourceVersion !== undefined && { resourceVersion }) },
    spec,
  };
}

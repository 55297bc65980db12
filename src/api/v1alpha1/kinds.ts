// Every kind of topogate.dev/v1alpha1, in the order its CRDs are listed: what `npm run generate` turns into
// manifests/crds/ and schema/.

import type { KindDefinition } from '../crd.ts';
import { controlPlaneDefinition } from './controlplane.ts';
import { etcdClusterDefinition } from './etcdcluster.ts';
import { networkTopologyDefinition } from './networktopology.ts';
import { schedulingPolicyDefinition } from './schedulingpolicy.ts';

export const kinds: readonly KindDefinition[] = [
  controlPlaneDefinition,
  etcdClusterDefinition,
  networkTopologyDefinition,
  schedulingPolicyDefinition,
];

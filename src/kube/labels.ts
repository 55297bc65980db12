// The well-known node labels of Kubernetes that topogate reads and writes, spelled once.

/** The zone of a Node, as the cloud provider or the kubelet sets it. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** The zone label before Kubernetes 1.17, still on some older nodes: read when ZONE_LABEL is missing. */
export const LEGACY_ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';
/** The region of a Node, which holds its zones. */
export const REGION_LABEL = 'topology.kubernetes.io/region';
/** A Node's hostname as the kubelet labels it; node affinity by host names the node through it. */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

// The policy writer as a part of serve, with --topology kube only: the
// SchedulingPolicy status and, with --audit-interval, the background audit's
// PolicyReports, written by the one replica that holds its Lease.

import { isClusterPolicies } from '../../sources/policies/clusterPolicies.ts';
import type { ServeComponent } from './component.ts';

const LEASE = 'topogate-policy-writer';

export const policyWriter: ServeComponent = {
  name: 'policy-writer',
  async start({ config, topology, policies, log }) {
    if (config.topology !== 'kube' || !isClusterPolicies(policies)) return undefined;
    // Loaded only here, as the live topology is: @kubernetes/client-node is large.
    const [{ startPolicyWriter }, { elect }, live, { writePolicyReports }] = await Promise.all([
      import('../../sources/policies/writer.ts'),
      import('../../kube-client/lease.ts'),
      import('../live.ts'),
      import('../../sources/policies/reports.ts'),
    ]);
    const kube = live.kubeConfig(config.kubeconfig);
    const namespace = config.leaseNamespace;
    const fromObject = (policy: { source?: { file: string } }) => policy.source?.file.startsWith('SchedulingPolicy/');
    const writer = startPolicyWriter({
      config: kube,
      objects: () => policies.cluster.objects(),
      files: () => policies.current().policies.filter((policy) => !fromObject(policy)),
      policies: () => policies.current().policies,
      snapshot: () => topology.current(),
      subscribe: (listener) => {
        const stops = [topology.subscribe(listener), policies.cluster.subscribe(listener), policies.onChange(listener)];
        return () => stops.forEach((stop) => stop());
      },
      elect: (callbacks) =>
        elect({ config: kube, namespace, name: LEASE, log: log.child({ component: LEASE }), ...callbacks }),
      ...(config.auditIntervalMs !== undefined && { auditIntervalMs: config.auditIntervalMs }),
      maxSourceAgeMs: config.maxSourceAgeMs,
      list: { pods: live.listPods, workloads: live.listWorkloads, writeReports: writePolicyReports },
      log: log.child({ component: LEASE }),
    });
    return { stop: () => writer.stop() };
  },
};

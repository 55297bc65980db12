// The racks and Pods the pack tests decide: five 32-cpu nodes in three racks
// of two blocks, Pods bound there, and replicas of Deployments.

import type { KubeObject, Pod } from '../../../src/kube/types.ts';
import type { PackRule } from '../../../src/policy/types.ts';
import { node } from './engine-cluster.ts';

export const ZONE = 'topology.kubernetes.io/zone';
export const RACK = 'topogate.dev/rack';
export const BLOCK = 'topogate.dev/block';
export const PACK: PackRule = { levels: [ZONE, BLOCK, RACK], level: RACK, mode: 'Required' };

/** Racks r1 (2 nodes), r2 (2 nodes) in block b1, r3 (1 node) in b2; each node 32 cpu. */
export function racks(): KubeObject[] {
  const at = (rack: string, block: string) => ({ [ZONE]: 'z', [BLOCK]: block, [RACK]: rack });
  return [
    node('n1', at('r1', 'b1')),
    node('n2', at('r1', 'b1')),
    node('n3', at('r2', 'b1')),
    node('n4', at('r2', 'b1')),
    node('n5', at('r3', 'b2')),
  ];
}

export function bound(name: string, nodeName: string, cpu: string, owner = 'other-1'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ml',
      ownerReferences: [{ kind: 'ReplicaSet', name: owner, controller: true, uid: owner }],
      labels: { 'pod-template-hash': owner.split('-').at(-1)! },
    },
    spec: { nodeName, containers: [{ name: 'c', resources: { requests: { cpu } } }] },
    status: { phase: 'Running' },
  };
}

/** A Pod admitted but not bound yet, held to one rack by its nodeSelector. */
export function held(name: string, rack: string, cpu: string, owner = 'other-1'): KubeObject {
  const pod = bound(name, '', cpu, owner);
  return {
    ...pod,
    spec: { ...(pod.spec as object), nodeName: undefined, nodeSelector: { [RACK]: rack } },
    status: { phase: 'Pending' },
  };
}

export function replica(deployment: string, cpu: string, replicas?: number, index = 0): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${deployment}-5f7-`,
      name: `${deployment}-5f7-${index}`,
      labels: { app: deployment, 'pod-template-hash': '5f7' },
      ...(replicas ? { annotations: { 'topogate.dev/replicas': String(replicas) } } : {}),
      ownerReferences: [{ kind: 'ReplicaSet', name: `${deployment}-5f7`, controller: true, uid: deployment }],
    },
    spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu } } }] },
  };
}

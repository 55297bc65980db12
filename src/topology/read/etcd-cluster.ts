// topogate.dev/v1alpha1 EtcdCluster → etcd members, where they run, the leader.

import type { EtcdMember } from '../model.ts';
import { isRecord } from '../../kube/json.ts';
import { list, record, string } from './fields.ts';

export function readEtcdCluster(object: Record<string, unknown>): EtcdMember[] {
  return list(record(object.status).members).flatMap(readMember);
}

function readMember(value: unknown): EtcdMember[] {
  if (!isRecord(value) || typeof value.name !== 'string') return [];
  const peerRttMs: Record<string, number> = {};
  for (const [peer, ms] of Object.entries(record(value.peerRttMs))) {
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) peerRttMs[peer] = ms;
  }
  const member: { -readonly [K in keyof EtcdMember]: EtcdMember[K] } = {
    name: value.name,
    isLeader: value.isLeader === true,
    peerRttMs,
  };
  const nodeName = string(value.nodeName);
  const endpoint = string(value.endpoint);
  if (nodeName) member.nodeName = nodeName;
  if (endpoint) member.endpoint = endpoint;
  if (typeof value.hasLeader === 'boolean') member.hasLeader = value.hasLeader;
  return [member];
}

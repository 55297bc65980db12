// The command lines of the control-plane components, as controller-runtime's
// envtest runs them, all on loopback.

import { join } from 'node:path';
import type { Component } from './process.ts';
import type { Binaries } from './versions.ts';

export interface EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly metricsUrl: string;
}

export function etcdMembers(ports: readonly number[], count: number): EtcdMember[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `etcd-${i}`,
    clientUrl: `http://127.0.0.1:${ports[3 * i]}`,
    peerUrl: `http://127.0.0.1:${ports[3 * i + 1]}`,
    metricsUrl: `http://127.0.0.1:${ports[3 * i + 2]}`,
  }));
}

export function etcdComponent(bins: Binaries, dir: string, member: EtcdMember, all: readonly EtcdMember[]): Component {
  return {
    name: member.name,
    command: bins.etcd,
    logFile: join(dir, 'logs', `${member.name}.log`),
    args: [
      `--name=${member.name}`,
      `--data-dir=${join(dir, member.name)}`,
      `--listen-client-urls=${member.clientUrl}`,
      `--advertise-client-urls=${member.clientUrl}`,
      `--listen-peer-urls=${member.peerUrl}`,
      `--initial-advertise-peer-urls=${member.peerUrl}`,
      `--initial-cluster=${all.map((m) => `${m.name}=${m.peerUrl}`).join(',')}`,
      '--initial-cluster-state=new',
      '--initial-cluster-token=topogate-e2e',
      `--listen-metrics-urls=${member.metricsUrl}`,
      // Throwaway data: durability buys nothing here and fsync is slow on shared disks.
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
  };
}

export interface ApiServerFiles {
  readonly certDir: string;
  readonly clientCa: string;
  readonly serviceAccountPublicKey: string;
  readonly serviceAccountPrivateKey: string;
}

export const serviceClusterIpRange = '10.0.0.0/24';

export function apiServerComponent(
  bins: Binaries,
  dir: string,
  port: number,
  etcd: readonly EtcdMember[],
  files: ApiServerFiles,
  extraArgs: readonly string[] = [],
): Component {
  return {
    name: 'kube-apiserver',
    command: bins.kubeApiserver,
    logFile: join(dir, 'logs', 'kube-apiserver.log'),
    args: [
      `--etcd-servers=${etcd.map((m) => m.clientUrl).join(',')}`,
      // Holds apiserver.crt/apiserver.key, which the API server serves when present.
      `--cert-dir=${files.certDir}`,
      `--secure-port=${port}`,
      // Loopback only; the advertise address stays the host's own, because the
      // `kubernetes` Service's endpoints may not be a loopback address.
      '--bind-address=127.0.0.1',
      `--service-cluster-ip-range=${serviceClusterIpRange}`,
      '--authorization-mode=Node,RBAC',
      `--client-ca-file=${files.clientCa}`,
      `--service-account-issuer=https://127.0.0.1:${port}`,
      `--service-account-key-file=${files.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${files.serviceAccountPrivateKey}`,
      // No controller-manager or kubelets here: nothing would create the tokens
      // ServiceAccount admission waits for, nor lift the not-ready taints.
      '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition',
      '--allow-privileged=true',
      ...extraArgs,
    ],
  };
}

export function schedulerComponent(bins: Binaries, dir: string, port: number, kubeconfig: string): Component {
  return {
    name: 'kube-scheduler',
    command: bins.kubeScheduler,
    logFile: join(dir, 'logs', 'kube-scheduler.log'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
    ],
  };
}

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

export function etcdComponent(
  bins: Binaries,
  dir: string,
  member: EtcdMember,
  all: readonly EtcdMember[],
  fsync = false,
): Component {
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
      // Throwaway data: durability buys nothing here and fsync is slow on shared disks
      // (but without fsyncs etcd observes no WAL fsync durations).
      ...(fsync ? [] : ['--unsafe-no-fsync']),
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

/** The serving certificate (signed by the cluster CA, for 127.0.0.1) of the scheduler's and controller manager's secure ports. */
export interface ServingFiles {
  readonly cert: string;
  readonly key: string;
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
      // No kubelets here, and the controller manager runs without its node
      // lifecycle controller: nothing would lift the not-ready taint this plugin
      // puts on every new Node. ServiceAccount admission stays on: the controller
      // manager makes each namespace's `default` ServiceAccount it waits for.
      '--disable-admission-plugins=TaintNodesByCondition',
      '--allow-privileged=true',
      ...extraArgs,
    ],
  };
}

/**
 * Leader election as a real control plane runs it, so the Leases
 * kube-system/kube-scheduler and kube-system/kube-controller-manager exist. A
 * component that cannot renew before the deadline exits, so the deadline is
 * long enough to ride out an API server restart or an etcd election in a test;
 * there is only ever one candidate, so a long lease costs nothing.
 */
const leaderElection = [
  '--leader-elect=true',
  '--leader-elect-lease-duration=60s',
  '--leader-elect-renew-deadline=40s',
  '--leader-elect-retry-period=2s',
];

/** Both components read their identity, and authenticate and authorize their callers, with one kubeconfig. */
function securePort(kubeconfig: string, port: number, serving: ServingFiles): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${serving.cert}`,
    `--tls-private-key-file=${serving.key}`,
  ];
}

export function schedulerComponent(
  bins: Binaries,
  dir: string,
  port: number,
  kubeconfig: string,
  serving: ServingFiles,
  extraArgs: readonly string[] = [],
): Component {
  return {
    name: 'kube-scheduler',
    command: bins.kubeScheduler,
    logFile: join(dir, 'logs', 'kube-scheduler.log'),
    args: [...securePort(kubeconfig, port, serving), ...leaderElection, ...extraArgs],
  };
}

export interface ControllerManagerFiles extends ServingFiles {
  readonly rootCa: string;
  readonly serviceAccountPrivateKey: string;
}

/**
 * Every default controller but two that act on kubelets, of which there are
 * none: the node lifecycle controller would mark every fake Node unreachable
 * after its grace period (no heartbeats), taint it and evict its Pods; the Pod
 * garbage collector deletes Pods bound to Nodes that do not exist, which tests
 * make on purpose (etcd's static Pods on `cp-<i>`).
 */
export const controllers = '*,-node-lifecycle-controller,-pod-garbage-collector-controller';

export function controllerManagerComponent(
  bins: Binaries,
  dir: string,
  port: number,
  kubeconfig: string,
  files: ControllerManagerFiles,
  extraArgs: readonly string[] = [],
): Component {
  return {
    name: 'kube-controller-manager',
    command: bins.kubeControllerManager,
    logFile: join(dir, 'logs', 'kube-controller-manager.log'),
    args: [
      ...securePort(kubeconfig, port, files),
      ...leaderElection,
      // --controllers is a list flag: given twice, the lists add up, so a caller's own replaces the default.
      ...(extraArgs.some((arg) => arg.startsWith('--controllers=')) ? [] : [`--controllers=${controllers}`]),
      // Each controller acts as its own ServiceAccount (system:serviceaccount:kube-system:<controller>), as kubeadm sets it up.
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${files.serviceAccountPrivateKey}`,
      `--root-ca-file=${files.rootCa}`,
      ...extraArgs,
    ],
  };
}

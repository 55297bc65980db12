// The configuration files of one real node (containerd, kubelet, kube-proxy, CNI) and the script that
// starts it in its own network and mount namespaces. Each setting that differs from a stock node is
// there for this sandbox; docs/e2e.md says why.

import { join } from 'node:path';
import type { NodePlan } from './nodeplan.ts';
import { network } from './nodeplan.ts';
import type { NodeBinaries } from './versions.ts';

export const pauseImage = 'localhost/topogate-e2e/pause:v1';
export const webImage = 'localhost/topogate-e2e/web:v1';

/** The cgroup (in every v1 hierarchy) under which a node's agents and Pods run, so that down finds them all. */
export const cgroupParent = 'topogate-e2e';

/** The values the kubelet insists on (protectKernelDefaults), bind-mounted in the node's mount namespace only. */
export const kernelDefaults: Readonly<Record<string, string>> = {
  'kernel/panic': '10',
  'kernel/panic_on_oops': '1',
  'kernel/keys/root_maxkeys': '1000000',
  'kernel/keys/root_maxbytes': '25000000',
  'vm/overcommit_memory': '1',
  'vm/panic_on_oom': '0',
};

export interface NodePaths {
  readonly dir: string;
  readonly socket: string;
  readonly containerdConfig: string;
  readonly kubeletConfig: string;
  readonly kubeletKubeconfig: string;
  readonly kubeProxyConfig: string;
  readonly kubeProxyKubeconfig: string;
  readonly cniConfDir: string;
  readonly script: string;
  readonly logDir: string;
  /** While this file exists, the node's script does not restart its kubelet. */
  readonly kubeletHold: string;
}

export function nodePaths(clusterDir: string, node: NodePlan): NodePaths {
  const dir = join(clusterDir, node.name);
  return {
    dir,
    socket: join(dir, 'containerd.sock'),
    containerdConfig: join(dir, 'containerd.toml'),
    kubeletConfig: join(dir, 'kubelet.yaml'),
    kubeletKubeconfig: join(dir, 'kubelet.kubeconfig'),
    kubeProxyConfig: join(dir, 'kube-proxy.yaml'),
    kubeProxyKubeconfig: join(dir, 'kube-proxy.kubeconfig'),
    cniConfDir: join(dir, 'cni'),
    script: join(dir, 'run.sh'),
    kubeletHold: join(dir, 'kubelet.hold'),
    logDir: join(clusterDir, 'logs', node.name),
  };
}

export function containerdToml(paths: NodePaths, bins: NodeBinaries, runc: string): string {
  return `version = 3
root = "${join(paths.dir, 'containerd')}"
state = "${join(paths.dir, 'containerd-state')}"

[grpc]
  address = "${paths.socket}"

[plugins.'io.containerd.nri.v1.nri']
  disable = true

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "${pauseImage}"

[plugins.'io.containerd.cri.v1.runtime']
  # No CAP_SYS_RESOURCE in this sandbox: without it every sandbox fails ("can't get final child's PID").
  restrict_oom_score_adj = true
  # The Pods' network namespaces stay inside the node's own state, not in the host's /run/netns.
  netns_mounts_under_state_dir = true
  enable_selinux = false
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = "${runc}"
        Root = "${join(paths.dir, 'runc')}"
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["${bins.cniDir}"]
    conf_dir = "${paths.cniConfDir}"
`;
}

export function cniConflist(paths: NodePaths, node: NodePlan): string {
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'topogate-e2e',
      plugins: [
        {
          type: 'bridge',
          bridge: 'cni0',
          isGateway: true,
          // Every Pod prefix is routed (through the router), so Pod traffic keeps its source address.
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: node.podCidr }]],
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: join(paths.dir, 'ipam'),
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  )}\n`;
}

export function kubeletYaml(paths: NodePaths, node: NodePlan, clientCaFile: string): string {
  return `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: ${node.ip}
readOnlyPort: 0
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: ${clientCaFile} }
authorization: { mode: Webhook }
containerRuntimeEndpoint: unix://${paths.socket}
cgroupDriver: cgroupfs
cgroupRoot: /${cgroupParent}/${node.name}
failCgroupV1: false
failSwapOn: false
protectKernelDefaults: true
podLogsDir: ${join(paths.dir, 'pod-logs')}
resolvConf: ""
hairpinMode: hairpin-veth
registerNode: true
nodeStatusUpdateFrequency: 5s
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 50Mi
  nodefs.available: 1%
  imagefs.available: 1%
  nodefs.inodesFree: 1%
serializeImagePulls: false
`;
}

export function kubeProxyYaml(paths: NodePaths, node: NodePlan): string {
  return `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: ${paths.kubeProxyKubeconfig} }
mode: nftables
hostnameOverride: ${node.name}
clusterCIDR: ${network.nodesCidr}
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nftables:
  # A Pod that reaches a Service backed by a Pod on its own bridge gets the answer through the node
  # (no br_netfilter here).
  masqueradeAll: true
conntrack:
  # 0: leave the kernel's conntrack settings alone (the table size is the host's, not the node's).
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`;
}

/**
 * Runs (as `nsenter --net=<node netns> unshare --mount --propagation slave sh run.sh`) in the node's
 * network namespace and a private mount namespace: a sysfs of its own network namespace with the host's
 * cgroup mounts bound back in, the kubelet's kernel defaults as files over /proc/sys, then containerd,
 * the kubelet and kube-proxy. Each agent's exit ends the node (the harness sees the script gone).
 */
export function nodeScript(paths: NodePaths, node: NodePlan, bins: NodeBinaries): string {
  const sysctls = Object.entries(kernelDefaults)
    .map(([key, value]) => {
      const file = join(paths.dir, 'sysctl', key.replaceAll('/', '.'));
      return `echo ${value} > ${file}\nmount --bind ${file} /proc/sys/${key}`;
    })
    .join('\n');
  const log = (name: string) => `>> ${join(paths.logDir, `${name}.log`)} 2>&1`;
  return `#!/bin/sh
set -eu
echo $$ > /sys/fs/cgroup/pids/${cgroupParent}/${node.name}/agents/cgroup.procs
mkdir -p ${paths.dir}/sysctl ${paths.dir}/cgroup
mount --rbind /sys/fs/cgroup ${paths.dir}/cgroup
mount -t sysfs sysfs /sys
mount --rbind ${paths.dir}/cgroup /sys/fs/cgroup
${sysctls}
export PATH=${bins.cniDir}:${join(bins.containerd, '..')}:$PATH
${bins.containerd} --config ${paths.containerdConfig} ${log('containerd')} &
for _ in $(seq 1 300); do [ -S ${paths.socket} ] && break; sleep 0.1; done
# The kubelet is restarted when it stops, as systemd would, unless the harness holds it (a node-loss test).
while :; do
  if [ -e ${paths.kubeletHold} ]; then sleep 1; continue; fi
  ${bins.kubelet} --config=${paths.kubeletConfig} --kubeconfig=${paths.kubeletKubeconfig} \\
    --root-dir=${join(paths.dir, 'kubelet')} --node-ip=${node.ip} --hostname-override=${node.name} \\
    --node-labels=topology.kubernetes.io/zone=${node.zone} ${log('kubelet')} || true
  sleep 1
done &
${bins.kubeProxy} --config=${paths.kubeProxyConfig} ${log('kube-proxy')} &
wait
`;
}

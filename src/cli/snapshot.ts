// `topogate snapshot`: the live topology's source objects as one `kind: List`,
// so that a cluster's model can be saved and replayed offline with
// `mutate --topology`, `explain --topology` or `serve --topology`.

import { Registry } from 'prom-client';
import { stringifyForKubectl } from '../kube/yaml.ts';
import type { KubeObject } from '../kube/types.ts';
import { TOPOLOGY_SOURCES } from '../topology/kinds.ts';
import { createKubeTopology } from '../sources/topology/kube.ts';
import type { Command } from './command.ts';
import { EXIT, parseFlags } from './command.ts';
import { stderrLog } from './stderr-log.ts';

const usage = `Usage: topogate snapshot [--kubeconfig F] [--etcd-metrics URL…] [--timeout SECONDS]

Watches the cluster's topology sources as \`serve --topology kube\` does, waits
until every source has synced (a source whose CRD is not installed is left
out), and prints their objects on stdout as one YAML \`kind: List\`, loadable
by --topology. etcd members scraped from --etcd-metrics are written as an
EtcdCluster object.

  --kubeconfig F        kubeconfig file (default: KUBECONFIG, ~/.kube/config,
                        or the in-cluster service account)
  --etcd-metrics URL    an etcd member's metrics URL (repeatable)
  --timeout SECONDS     how long to wait for the sources to sync (default 30)

Exit 0 when printed, 1 when the sources did not sync in time or the cluster
cannot be reached, 2 on bad usage.
`;

export const snapshot: Command = {
  summary: "prints the live topology's source objects as one kind: List",
  usage,
  async run(args, io) {
    const parsed = parseFlags('snapshot', usage, io, {
      args: [...args],
      options: {
        kubeconfig: { type: 'string' },
        'etcd-metrics': { type: 'string', multiple: true },
        timeout: { type: 'string', default: '30' },
      },
    });
    if (parsed === undefined) return EXIT.usage;
    const { values } = parsed;
    const timeoutSeconds = Number(values.timeout);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
      io.stderr.write(
        `topogate snapshot: --timeout must be a positive number of seconds, not "${values.timeout}"\n\n${usage}`,
      );
      return EXIT.usage;
    }
    let topology;
    try {
      topology = createKubeTopology({
        ...(values.kubeconfig !== undefined && { kubeconfig: values.kubeconfig }),
        etcdMetrics: values['etcd-metrics'] ?? [],
        // It writes them all out.
        keepObjects: true,
        log: stderrLog('snapshot', io.stderr),
        registry: new Registry(),
      });
    } catch (error) {
      io.stderr.write(`topogate snapshot: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    try {
      await topology.ready(timeoutSeconds * 1000);
      const bySource = topology.objects();
      const items = TOPOLOGY_SOURCES.flatMap((source) => sortedByKey(bySource.get(source) ?? []));
      io.stdout.write(stringifyForKubectl({ apiVersion: 'v1', kind: 'List', items }));
      return EXIT.ok;
    } catch (error) {
      io.stderr.write(`topogate snapshot: not synced after ${timeoutSeconds}s: ${(error as Error).message}\n`);
      return EXIT.failed;
    } finally {
      await topology.stop();
    }
  },
};

function sortedByKey(objects: readonly KubeObject[]): KubeObject[] {
  const key = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  return [...objects].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

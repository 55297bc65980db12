// --topology and what reading it from a live cluster takes.

import { join, resolve } from 'node:path';
import { parseDuration } from '../../../server/duration.ts';
import { text, texts, type FlagGroup } from './flag-group.ts';
import { packageRoot } from './package-root.ts';

export interface TopologyFlags {
  readonly topology: 'kube' | readonly string[];
  readonly kubeconfig?: string;
  readonly etcdMetrics: readonly string[];
  readonly maxSourceAgeMs: number;
}

export const topologyFlags: FlagGroup<TopologyFlags> = {
  options: {
    topology: { type: 'string', multiple: true },
    kubeconfig: { type: 'string' },
    'etcd-metrics': { type: 'string', multiple: true, default: [] },
    'max-source-age': { type: 'string', default: '10m' },
  },
  takesPositionals: ['topology'],
  help: `  --topology kube|PATH…  kube: watch the API server; else files or folders of
                         objects, repeatable (default: kube inside a cluster,
                         that is when KUBERNETES_SERVICE_HOST is set, else the
                         package's examples/cluster/)
  --kubeconfig F         with --topology kube: the cluster to watch (default:
                         KUBECONFIG, ~/.kube/config, or the in-cluster account)
  --etcd-metrics URL     with --topology kube: an etcd member's metrics URL,
                         repeatable (default: EtcdCluster objects)
  --max-source-age D     topology older than this degrades the rules that need
                         it, e.g. 90s, 10m, 1h (default 10m)`,
  parse(values, { cwd, inCluster }) {
    const paths = texts(values, 'topology');
    const kubeconfig = text(values, 'kubeconfig');
    const etcdMetrics = texts(values, 'etcd-metrics');
    const kube = paths.length === 0 ? inCluster : paths.includes('kube');
    if (kube && paths.length > 1) return { error: '--topology kube cannot be combined with paths' };
    if (!kube && (kubeconfig !== undefined || etcdMetrics.length > 0))
      return { error: '--kubeconfig and --etcd-metrics need --topology kube' };
    const badUrl = etcdMetrics.find((url) => !/^https?:\/\/[^/]/.test(url));
    if (badUrl !== undefined) return { error: `--etcd-metrics "${badUrl}" is not an http(s) URL` };
    const maxSourceAge = text(values, 'max-source-age') ?? '';
    const maxSourceAgeMs = parseDuration(maxSourceAge);
    if (maxSourceAgeMs === undefined)
      return { error: `--max-source-age must be a duration such as 90s, 10m or 1h, not "${maxSourceAge}"` };
    return {
      config: {
        topology: kube
          ? 'kube'
          : paths.length > 0
            ? paths.map((path) => resolve(cwd, path))
            : [join(packageRoot, 'examples', 'cluster')],
        ...(kubeconfig !== undefined && { kubeconfig: resolve(cwd, kubeconfig) }),
        etcdMetrics,
        maxSourceAgeMs,
      },
    };
  },
};

// Workloads act through the Pods their controllers create: their pod
// template, seen as a Pod, is what a policy decides on.

import { isRecord } from './json.ts';
import type { KubeObject, Pod } from './types.ts';

/** Where each workload kind keeps its pod template. */
const TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  ReplicationController: ['spec', 'template'],
  Job: ['spec', 'template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
};

export function isWorkloadKind(kind: unknown): boolean {
  return typeof kind === 'string' && Object.hasOwn(TEMPLATE_PATHS, kind);
}

/** The workload's pod template as the Pod it will create, or undefined when it has none. */
export function templatePod(workload: KubeObject): Pod | undefined {
  const template = templateOf(workload);
  if (!template) return undefined;
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod' };
  if (template.metadata !== undefined) pod.metadata = template.metadata;
  if (template.spec !== undefined) pod.spec = template.spec;
  return pod;
}

/** A copy of the workload whose pod template takes the Pod's metadata and spec. */
export function withTemplatePod(workload: KubeObject, pod: Pod): KubeObject {
  const path = TEMPLATE_PATHS[String(workload.kind)];
  if (!path) throw new TypeError(`${String(workload.kind)} has no pod template`);
  const template: Record<string, unknown> = { ...templateOf(workload) };
  if (pod.metadata !== undefined) template.metadata = pod.metadata;
  if (pod.spec !== undefined) template.spec = pod.spec;
  return replaceAt(workload, path, template) as KubeObject;
}

function templateOf(workload: KubeObject): Record<string, any> | undefined {
  const path = TEMPLATE_PATHS[String(workload.kind)];
  if (!path) return undefined;
  let node: unknown = workload;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return isRecord(node) ? node : undefined;
}

function replaceAt(object: unknown, path: readonly string[], value: unknown): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return value;
  const record = isRecord(object) ? object : {};
  return { ...record, [key]: replaceAt(record[key], rest, value) };
}

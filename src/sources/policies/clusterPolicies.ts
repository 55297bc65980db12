// The policies in force in a cluster (shell): the directory's, plus the cluster's SchedulingPolicy
// objects (their own informer, objects.ts). Recombined whenever either changes; a new version only
// when the combined set differs.

import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Readiness } from '../../ports/readiness.ts';
import { combinePolicies, readPolicyObjects, samePolicies, type ObjectReadings } from '../../policy/combine.ts';
import { formatPolicyError, summarizePolicyErrors, type PolicyError } from '../../policy/errors.ts';
import type { PolicyProvider, PolicyVersion } from '../../ports/policies.ts';
import { notifyAll } from './notify.ts';
import type { PolicyObjectSource } from './objects.ts';

export interface ClusterPoliciesOptions {
  /** The directory's policies; stopped with this provider. */
  readonly directory: PolicyProvider;
  /** The SchedulingPolicy objects; stopped with this provider. */
  readonly cluster: PolicyObjectSource;
  readonly log: Logger;
  readonly registry: Registry;
}

/** The policies in force, and the objects they come from (for the status writer). */
export interface ClusterPolicies extends PolicyProvider {
  readonly cluster: PolicyObjectSource;
}

export const isClusterPolicies = (policies: PolicyProvider): policies is ClusterPolicies => 'cluster' in policies;

export function createClusterPolicies({ directory, cluster, log, registry }: ClusterPoliciesOptions): ClusterPolicies {
  const metrics = objectMetrics(registry);
  const listeners = new Set<(set: PolicyVersion) => void>();
  let readings: ObjectReadings = new Map();
  let current: PolicyVersion = { version: 0, policies: [] };
  let errors: readonly PolicyError[] = [];

  function recombine(): void {
    readings = readObjects(cluster, readings);
    const files = directory.current().policies;
    const combined = combinePolicies(files, readings);
    reportErrors(log, errors, combined.errors);
    errors = combined.errors;
    metrics.invalid.set(new Set(combined.errors.map((error) => error.file)).size);
    metrics.loaded.set(combined.policies.length - files.length);
    if (samePolicies(combined.policies, current.policies)) return;
    current = { version: current.version + 1, policies: combined.policies };
    log.info(
      { version: current.version, policies: current.policies.map((policy) => policy.name) },
      'policy set in force (files and SchedulingPolicy objects)',
    );
    notifyAll(log, listeners, current);
  }

  const unsubscribe = [cluster.subscribe(recombine), directory.onChange(recombine)];
  recombine();

  return {
    cluster,
    current: () => current,
    readiness: () => combinedReadiness(directory, cluster, errors),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      unsubscribe.forEach((stop) => stop());
      await Promise.all([directory.stop(), cluster.stop()]);
    },
  };
}

/** Logs the errors that are new since `before`, and the end of the last one. */
function reportErrors(log: Logger, before: readonly PolicyError[], now: readonly PolicyError[]): void {
  const known = new Set(before.map(formatPolicyError));
  const fresh = now.map(formatPolicyError).filter((error) => !known.has(error));
  if (fresh.length > 0)
    log.error({ errors: fresh }, 'SchedulingPolicy objects refused; the last good version of each stays in force');
  if (now.length === 0 && before.length > 0) log.info('no SchedulingPolicy object is refused any more');
}

/** Ready when the files are and the objects have synced once; invalid objects are said, not a failure. */
function combinedReadiness(
  directory: PolicyProvider,
  cluster: PolicyObjectSource,
  errors: readonly PolicyError[],
): Readiness {
  const files = directory.readiness();
  if (!files.ready) return files;
  const status = cluster.status();
  if (!status.synced && status.disabled === undefined) {
    return {
      ready: false,
      reason: `waiting for the first sync of SchedulingPolicy objects${status.error ? ` (${status.error})` : ''}`,
    };
  }
  const reasons = [
    files.reason,
    errors.length > 0
      ? `invalid SchedulingPolicy objects, their last good versions stay in force: ${summarizePolicyErrors(errors)}`
      : undefined,
  ];
  const reason = reasons.filter((text) => text !== undefined).join('; ');
  return reason === '' ? { ready: true } : { ready: true, reason };
}

/**
 * The objects' readings now. Out of contact the objects are those seen last, and so are the
 * readings: the relist after a lost watch is what changes them. A disabled source (the CRD is
 * gone, and its objects with it) holds none.
 */
function readObjects(cluster: PolicyObjectSource, previous: ObjectReadings): ObjectReadings {
  const status = cluster.status();
  if (status.disabled !== undefined) return previous.size === 0 ? previous : new Map();
  if (!status.inContact) return previous;
  return readPolicyObjects(cluster.objects(), previous);
}

function objectMetrics(registry: Registry) {
  const registers = [registry];
  return {
    loaded: new Gauge({
      name: 'topogate_policy_objects_loaded',
      help: 'SchedulingPolicy objects whose policy is in force (their current version, or their last good one).',
      registers,
    }),
    invalid: new Gauge({
      name: 'topogate_policy_objects_invalid',
      help: 'SchedulingPolicy objects refused (invalid, or named like a file policy).',
      registers,
    }),
  };
}

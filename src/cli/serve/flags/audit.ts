// --audit-interval: the background audit, off unless given.

import { parseDuration } from '../../../server/duration.ts';
import { text, type FlagGroup } from './flag-group.ts';

export interface AuditFlags {
  /** Undefined: no background audit. */
  readonly auditIntervalMs?: number;
}

export const auditFlags: FlagGroup<AuditFlags> = {
  options: { 'audit-interval': { type: 'string' } },
  help: `  --audit-interval D     with --topology kube: every D (e.g. 5m), the replica
                         holding the policy writer's Lease audits the cluster's
                         Pods and workloads (as \`topogate audit\`) and writes one
                         wgpolicyk8s.io/v1alpha2 PolicyReport per namespace
                         (default: off)`,
  parse(values) {
    const given = text(values, 'audit-interval');
    if (given === undefined) return { config: {} };
    const auditIntervalMs = parseDuration(given);
    if (auditIntervalMs === undefined || auditIntervalMs < 1000)
      return { error: `--audit-interval must be a duration of at least 1s such as 30s or 5m, not "${given}"` };
    return { config: { auditIntervalMs } };
  },
};

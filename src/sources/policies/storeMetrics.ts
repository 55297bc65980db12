// The policy directory store's metrics.

import { Counter, Gauge, type Registry } from 'prom-client';

export type PolicyStoreMetrics = ReturnType<typeof policyStoreMetrics>;

export function policyStoreMetrics(registry: Registry) {
  const registers = [registry];
  return {
    errors: new Counter({
      name: 'topogate_policy_reload_errors_total',
      help: 'Policy reloads refused because of errors (the last good set stayed in force).',
      registers,
    }),
    loaded: new Gauge({ name: 'topogate_policies_loaded', help: 'Policies in the set in force.', registers }),
    successful: new Gauge({
      name: 'topogate_policy_last_reload_successful',
      help: '1 when the last policy reload succeeded, else 0.',
      registers,
    }),
    heldEmpty: new Gauge({
      name: 'topogate_policy_files_held_empty',
      help: 'Policy files that became empty, or lost policies and end at a "---", whose last policies are kept in force.',
      registers,
    }),
    loadedAt: new Gauge({
      name: 'topogate_policy_last_reload_success_timestamp_seconds',
      help: 'When the policies were last loaded without error (Unix seconds).',
      registers,
    }),
  };
}

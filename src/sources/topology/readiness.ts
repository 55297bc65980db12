// Readiness from the sources' statuses: ready once every configured source
// has synced (a disabled one never will, and does not hold readiness back);
// what is disabled or out of contact is said while ready.

import type { TopologySnapshot } from '../../topology/model.ts';
import type { Readiness } from '../../ports/readiness.ts';

export function sourceReadiness(snapshot: TopologySnapshot, now: number, maxAgeMs: number): Readiness {
  const waiting: string[] = [];
  const degraded: string[] = [];
  for (const status of snapshot.sources.values()) {
    if (status.disabled !== undefined) degraded.push(`${status.name} disabled (${status.disabled})`);
    else if (!status.synced) waiting.push(status.error ? `${status.name} (${status.error})` : status.name);
    else if (status.staleSince !== undefined && now - status.staleSince > maxAgeMs) {
      degraded.push(
        `${status.name} out of contact for ${Math.round((now - status.staleSince) / 1000)}s (${status.error ?? 'no answer'})`,
      );
    }
  }
  if (waiting.length > 0)
    return { ready: false, reason: `topology: waiting for the first sync of ${waiting.join(', ')}` };
  return degraded.length > 0 ? { ready: true, reason: `topology degraded: ${degraded.join('; ')}` } : { ready: true };
}

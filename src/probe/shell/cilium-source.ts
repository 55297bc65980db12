// Scrapes Cilium agents' /metrics (--cilium-metrics URL…) at each gather of
// the Lease holder and turns them into summaries beside the probes' own.

import type { Logger } from 'pino';
import { ciliumSummaries } from '../adapters/cilium.ts';
import type { AgentSummary } from '../summary.ts';

export function ciliumSource(
  urls: readonly string[],
  zones: () => ReadonlyMap<string, string>,
  timeoutMs: number,
  log: Logger,
): () => Promise<readonly AgentSummary[]> {
  return async () => {
    const texts = await Promise.all(
      urls.map(async (url) => {
        try {
          const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
          if (!response.ok) throw new Error(`HTTP ${response.status}`);
          return await response.text();
        } catch (error) {
          log.warn({ url }, `cilium metrics not read: ${(error as Error).message}`);
          return '';
        }
      }),
    );
    const zoneOf = zones();
    return texts.flatMap((text) => ciliumSummaries(text, (node) => zoneOf.get(node)));
  };
}

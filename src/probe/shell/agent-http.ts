// A probe agent's HTTP routes: /healthz, /metrics, and /summary (its own measurements, which the writer gathers).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { type AgentSummary, encodeSummary } from '../summary.ts';

export function agentHttp(
  registry: Registry,
  node: string,
  summary: () => AgentSummary | undefined,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/healthz') return reply(response, 200, 'text/plain', 'ok\n');
    if (path === '/metrics') return reply(response, 200, registry.contentType, await registry.metrics());
    if (path === '/summary') {
      const mine = summary();
      if (!mine) return reply(response, 503, 'text/plain', `the zone of node ${node} is not known yet\n`);
      return reply(response, 200, 'application/json', encodeSummary(mine));
    }
    return reply(response, 404, 'text/plain', 'not found\n');
  };
}

function reply(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type });
  response.end(body);
}

// GETs a metrics page, keeping only the lines of the families asked for. The
// API server's page is megabytes: read chunk by chunk (the event loop serves
// admission requests between chunks) and never held whole. HTTPS requests
// carry topogate's own credentials from its kubeconfig (a client certificate
// or the ServiceAccount's token) and verify the server against its CA.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface ScrapeOptions {
  /** Lines starting with one of these are kept (comments never are). */
  readonly prefixes: readonly string[];
  readonly timeoutMs: number;
  /** For https URLs: credentials and CA, from kubeCredentials. */
  readonly tls?: RequestOptions;
}

/** The kubeconfig's CA, client certificate and Authorization header, re-read each call (tokens rotate). */
export async function kubeCredentials(config: KubeConfig): Promise<RequestOptions> {
  const options: RequestOptions = {};
  await config.applyToHTTPSOptions(options);
  const { ca, cert, key, headers, rejectUnauthorized } = options;
  return { ca, cert, key, headers, ...(rejectUnauthorized !== undefined && { rejectUnauthorized }) };
}

/** Resolves to the kept lines; rejects with a short reason (HTTP status, timeout, connection error). */
export function scrapeLines(url: string, options: ScrapeOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const https = url.startsWith('https:');
    const send = https ? httpsRequest : httpRequest;
    const req = send(url, { ...(https ? options.tls : {}), timeout: options.timeoutMs }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(
          new Error(
            `HTTP ${res.statusCode}${res.statusCode === 401 || res.statusCode === 403 ? ' (topogate is not allowed to get /metrics there)' : ''}`,
          ),
        );
        return;
      }
      res.setEncoding('utf8');
      const kept: string[] = [];
      let partial = '';
      res.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (options.prefixes.some((prefix) => line.startsWith(prefix))) kept.push(line);
      });
      res.on('end', () => {
        if (options.prefixes.some((prefix) => partial.startsWith(prefix))) kept.push(partial);
        resolve(kept.join('\n'));
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${options.timeoutMs} ms`)));
    req.on('error', (error: NodeJS.ErrnoException) => reject(new Error(error.code ?? error.message)));
    req.end();
  });
}

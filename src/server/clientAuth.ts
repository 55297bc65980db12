// `serve --client-ca FILE`: /mutate answers only a client that presents a
// certificate signed by that CA, as the API server does when its
// AdmissionConfiguration gives it a kubeconfig for this webhook. The TLS
// handshake asks for a certificate but does not require one, so that the
// kubelet's probes and Prometheus (which present none) still reach /healthz,
// /readyz and /metrics; /mutate checks the verdict of the handshake.

import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { TLSSocket } from 'node:tls';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { replyFailure } from './reply.ts';

/** The TLS settings that make a client present its certificate and check it against `caPem`. */
export function clientCertificateSettings(caPem: string) {
  return { ca: caPem, requestCert: true, rejectUnauthorized: false } as const;
}

/** Why `pem` cannot be a client CA bundle, or undefined. */
export function clientCaProblem(pem: string): string | undefined {
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) return 'it holds no PEM certificate';
  try {
    new X509Certificate(pem);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The PEM bundle of --client-ca FILE; throws saying why when it cannot be one. */
export async function readClientCa(file: string): Promise<string> {
  const pem = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new Error(`--client-ca ${file}: ${(error as Error).message}`);
  });
  const problem = clientCaProblem(pem);
  if (problem !== undefined) throw new Error(`--client-ca ${file} is not a CA certificate: ${problem}`);
  return pem;
}

export interface ClientCertificateOptions {
  readonly registry: Registry;
  readonly log: Logger;
}

/** Says whether the TLS handshake verified the client's certificate, and otherwise answers 401 and counts it. */
export type ClientCertificateCheck = (socket: Partial<TLSSocket> | undefined, response: ServerResponse) => boolean;

export function requireClientCertificate({ registry, log }: ClientCertificateOptions): ClientCertificateCheck {
  const refused = new Counter({
    name: 'topogate_client_certificate_refused_total',
    help: 'Requests to /mutate refused with 401: no client certificate, or one not signed by --client-ca.',
    registers: [registry],
  });
  return (socket, response) => {
    if (socket?.authorized === true) return true;
    // Without a certificate the handshake still reports an authorizationError (no issuer to check).
    const presented = Object.keys(socket?.getPeerCertificate?.() ?? {}).length > 0;
    const why = presented
      ? `the client certificate was refused: ${String(socket?.authorizationError)}`
      : 'no client certificate was presented';
    refused.inc();
    log.warn(
      { remoteAddress: socket?.remoteAddress, reason: why },
      'request without a valid client certificate refused',
    );
    // Its body is left unread, and a caller without a certificate gets no second try on this connection.
    replyFailure(response, 401, `${why}; /mutate needs a certificate signed by the --client-ca of this webhook`, true);
    return false;
  };
}

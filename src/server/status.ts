// Error answers as a meta/v1 Status, the shape Kubernetes clients (the API
// server's webhook client among them) read a message from.

export interface StatusBody {
  readonly apiVersion: 'v1';
  readonly kind: 'Status';
  readonly status: 'Failure';
  readonly code: number;
  readonly reason: string;
  readonly message: string;
}

const reasons: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'Timeout',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  417: 'ExpectationFailed',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
  500: 'InternalError',
};

export function failure(code: number, message: string): StatusBody {
  return { apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason: reasons[code] ?? 'Unknown', message };
}

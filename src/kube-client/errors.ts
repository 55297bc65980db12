// What went wrong talking to the API server, in words for a log line and a
// readiness reason: the HTTP status and the server's own message, or the
// network error under fetch's "fetch failed".

/** The HTTP status of a client-node error: `code` on an ApiException, `statusCode` from a watch. */
export function statusOf(error: unknown): number | undefined {
  const { code, statusCode } = (error ?? {}) as { code?: unknown; statusCode?: unknown };
  return typeof code === 'number' ? code : typeof statusCode === 'number' ? statusCode : undefined;
}

export function describeKubeError(error: unknown): string {
  const status = statusOf(error);
  // fetch's own message is "fetch failed"; what failed is in its cause.
  const { code, message: causeMessage } =
    (error as { cause?: { code?: string; message?: string } } | undefined)?.cause ?? {};
  const cause = code ?? causeMessage;
  const message = statusMessage(error) ?? (error instanceof Error ? error.message.split('\n')[0]! : String(error));
  return `${status ? `HTTP ${status}: ` : ''}${message}${cause ? ` (${cause})` : ''}`;
}

/** The API server's own words: the Status object an ApiException carries as its body, else its "Message:" line. */
function statusMessage(error: unknown): string | undefined {
  const line = error instanceof Error ? /^Message: (.+)$/m.exec(error.message)?.[1] : undefined;
  let body = (error as { body?: unknown } | undefined)?.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return line;
    }
  }
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : line;
}

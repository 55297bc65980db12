// Reading a request body within a size limit. A declared Content-Length over
// the limit is refused before a byte is read; a chunked body is cut off as
// soon as it passes the limit. The bytes are decoded later, by the review
// memo (admission/reviewMemo.ts), which a replica's body skips.

import type { Readable } from 'node:stream';

/** The API server's own limit on a request body (3 MiB): no AdmissionReview it sends is larger. */
export const defaultMaxBodyBytes = 3 * 1024 * 1024;

export function isJson(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

export type BodyResult =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly code: 400 | 413; readonly message: string };

export function declaredTooLarge(contentLength: string | undefined, maxBytes: number): BodyResult | undefined {
  if (contentLength === undefined || Number(contentLength) <= maxBytes) return undefined;
  return tooLarge(`${contentLength} bytes`, maxBytes);
}

/** The body of Node's request, read as it arrives (no web ReadableStream around it: that costs more than the read). */
export function readIncoming(incoming: Readable, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyResult): void => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        incoming.pause();
        finish(tooLarge(`more than ${maxBytes} bytes`, maxBytes));
      }
    };
    const onEnd = (): void =>
      finish({ ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    // The client went away mid-body: nobody will read the answer, but it is no server error.
    const onError = (error: Error): void =>
      finish({ ok: false, code: 400, message: `the body could not be read: ${error.message}` });
    // Closed before its end: the client went away, or the server dropped it (a request timeout). Either way the
    // body will never come, and the in-flight slot waiting on it must be given back.
    const onClose = (): void => onError(new Error('the connection closed before the whole body arrived'));
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

function tooLarge(size: string, maxBytes: number): BodyResult {
  return {
    ok: false,
    code: 413,
    message: `the body is ${size}; the limit is ${maxBytes} bytes (${(maxBytes / 1048576).toFixed(1)} MiB)`,
  };
}

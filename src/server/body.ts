// Reading a request body within a size limit. A declared Content-Length over
// the limit is refused before a byte is read; a chunked body is cut off as
// soon as it passes the limit.

/** The API server's own limit on a request body (3 MiB): no AdmissionReview it sends is larger. */
export const defaultMaxBodyBytes = 3 * 1024 * 1024;

export function isJson(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

export type BodyResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly code: 400 | 413; readonly message: string };

export function declaredTooLarge(contentLength: string | undefined, maxBytes: number): BodyResult | undefined {
  if (contentLength === undefined || Number(contentLength) <= maxBytes) return undefined;
  return tooLarge(`${contentLength} bytes`, maxBytes);
}

export async function readBody(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<BodyResult> {
  if (body === null) return { ok: true, text: '' };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        return tooLarge(`more than ${maxBytes} bytes`, maxBytes);
      }
      chunks.push(read.value);
    }
  } catch (error) {
    // The client went away mid-body: nobody will read the answer, but it is no server error.
    return { ok: false, code: 400, message: `the body could not be read: ${(error as Error).message}` };
  }
  try {
    return { ok: true, text: utf8.decode(Buffer.concat(chunks)) };
  } catch {
    return { ok: false, code: 400, message: 'the body is not valid UTF-8 JSON' };
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function tooLarge(size: string, maxBytes: number): BodyResult {
  return { ok: false, code: 413, message: `the body is ${size}; the limit is ${maxBytes} bytes (${(maxBytes / 1048576).toFixed(1)} MiB)` };
}

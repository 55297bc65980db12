// A request body, from its bytes to a checked AdmissionReview: UTF-8, JSON
// (bounded in depth, no "__proto__"), then the review's own fields.

import { decodeReview, type DecodeResult } from './decode.ts';
import { parseJson } from './json.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeBytes(bytes: Uint8Array): DecodeResult {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, message: 'the body is not valid UTF-8 JSON' };
  }
  const parsed = parseJson(text);
  return parsed.ok ? decodeReview(parsed.value) : parsed;
}

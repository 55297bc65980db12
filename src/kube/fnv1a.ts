// FNV-1a (32 bit), the one string hash every layer shares: deterministic on
// every replica, agent and Node version, which ranking, bucketing and the
// rollout percent rely on. Over the text's UTF-8 bytes, as the rollout's
// documented bucket is; names and label values are ASCII, whose bytes are its
// UTF-16 code units, so those are hashed without encoding.

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

const utf8 = new TextEncoder();

export function fnv1a(text: string): number {
  let hash = FNV_OFFSET;
  let bits = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    bits |= code;
    hash = Math.imul(hash ^ code, FNV_PRIME);
  }
  return bits < 0x80 ? hash >>> 0 : hashBytes(utf8.encode(text));
}

/** A text with a character past ASCII, hashed again over its encoding (no branch in the loop above). */
function hashBytes(bytes: Uint8Array): number {
  let hash = FNV_OFFSET;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, FNV_PRIME);
  return hash >>> 0;
}

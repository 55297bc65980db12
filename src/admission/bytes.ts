// A request body, from its bytes to a checked AdmissionReview: without the
// arrays topogate never reads, UTF-8, JSON (bounded in depth, no "__proto__"),
// then the review's own fields.

import { MemberSkim } from '../kube/skim.ts';
import { unreadMembers } from '../kube/unread-members.ts';
import { decodeReview, type DecodeResult } from './decode.ts';
import { parseJson } from './json.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A Pod's arrays that nothing reads or writes (kube/unread-members.ts: managedFields, volumes, mounts,
 * environments, statuses). A ResourceClaim, the other kind decided, has none it reads under those keys either.
 */
const unread = new MemberSkim(unreadMembers('pods'));

/**
 * `body` without those arrays, cut unparsed (kube/skim.ts): half of a typical Pod's JSON, and of its parse. Their
 * brackets and strings are matched, nothing else of them is checked: the API server sends valid JSON, and what
 * another client puts there is never read. The patch never writes under them, so it applies to the whole Pod.
 */
export function withoutUnreadArrays(body: Buffer): Buffer {
  const pieces = unread.cut(body);
  return pieces.length === 1 ? body : Buffer.concat(pieces);
}

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

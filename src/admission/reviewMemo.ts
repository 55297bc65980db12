// Replicas of a workload reach the webhook as the same bytes but for a few
// values: the ReplicaSet controller creates each from one template. What
// differs is request.uid, the name of the service-account token volume
// (kube-api-access-xxxxx), which the ServiceAccount admission plugin draws anew
// for every Pod and writes in spec.volumes and in each container's
// volumeMounts, from one second to the next managedFields' time, and the Pod's
// name where one is sent: the API server of this writing names a generateName
// Pod only after admission, but a name drawn before (generateName and five
// letters or digits, in request.name and metadata.name) is a span too.
// The token volume and managedFields are in arrays topogate never reads, cut
// from every body before anything else (bytes.ts): what is left differs only in
// the uid and the names. Parsing such a body again (UTF-8, JSON.parse and the
// depth check) was the largest part of a replica's cost; this memo gives back
// the review decoded before, with the new values put in. Only the parse is
// remembered: the budget, the decision and everything else still run for every
// request.
//
// The values are found in the bytes (spans): the characters between the first
// `"uid":"` and the next quote (the API server writes request.uid first), and
// every whole string of the first generateName's value + five letters or
// digits. A body is kept only once each span is shown to be the whole of one
// value where the API server puts it: parsed again with each span changed to a
// text of its own, which no other span's new text contains, each of those
// values is its span's new text. Only a token whose content is exactly the
// span can give that, and a value token changes no other value, so a body with
// the same bytes around the spans parses to the same review but for those
// values (a span in a key, in a longer string or in a value a later duplicate
// key overrides fails the check). The spans hold no character JSON escapes.
//
// As the decision memo does, a body is kept only from its second sight (its
// hash in a SeenTable at the first): most Pods are the only one of their kind,
// and keeping each would make the old generation's collector pay for them.

import { LRUCache } from 'lru-cache';
import { isRecord } from '../kube/json.ts';
import { SeenTable } from '../memo/seenTable.ts';
import { bytesHash } from '../memo/textHash.ts';
import { decodeBytes, withoutUnreadArrays } from './bytes.ts';
import type { DecodeResult } from './decode.ts';
import type { AdmissionRequest, AdmissionReviewRequest } from './review.ts';

/** Bodies kept: workloads scaling at the same time. Each holds its parsed review and a copy of its bytes. */
export const REVIEW_MEMO_LIMIT = 64;
/** Larger bodies are always parsed, so the memo holds a few MB at most (a Pod's body is 2-20 KB). */
export const LARGEST_KEPT_BODY = 32 * 1024;
/** A UUID is 36 characters; the API server sends nothing longer. */
const LONGEST_UID = 128;
/** Spans in one body: the uid and the two names the API server writes, with room for what a hostile body repeats. */
const MOST_SPANS = 64;
/** 2^14 slots of first sights, 64 KB. */
const SEEN_SLOT_BITS = 14;

const UID_KEY = Buffer.from('"uid":"');
/** Without its opening quote, as the other needles (the commonest byte of JSON makes the slowest search). */
const GENERATE_NAME_KEY = Buffer.from('generateName":"');
/** A name is at most 63 characters, and the API server adds five to generateName. */
const LONGEST_GENERATE_NAME = 58;
const GENERATED_LENGTH = 5;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

type Path = readonly (string | number)[];

/** Where the spans' values go in the review: a tree of the paths, whose leaves are span numbers. */
type Plan = readonly (readonly [string | number, Plan | number])[];

interface KeptBody {
  /** The body without its spans. */
  readonly rest: Buffer;
  /** Where each span was in `rest`. */
  readonly spansAt: Int32Array;
  /** Undefined when the spans were not shown to be whole values: such a body is parsed every time, not checked again. */
  readonly known: { readonly review: AdmissionReviewRequest; readonly plan: Plan } | undefined;
}

export class ReviewMemo {
  readonly #onRemembered: () => void;
  readonly #kept = new LRUCache<number, KeptBody>({ max: REVIEW_MEMO_LIMIT });
  readonly #seen = new SeenTable(SEEN_SLOT_BITS);
  /** The body being decoded, without its spans: reused by every call, and read four bytes at a time to hash. */
  readonly #rest = new Uint8Array(LARGEST_KEPT_BODY);
  readonly #words = new Int32Array(this.#rest.buffer);
  /** The spans of the body being decoded: start and end in the body, and start in #rest. */
  readonly #spans = new Int32Array(3 * MOST_SPANS);
  /** A body with its spans changed, to parse again. */
  readonly #changed = Buffer.allocUnsafeSlow(LARGEST_KEPT_BODY);

  /** `onRemembered`: called for each review given from the memo. */
  constructor(onRemembered: () => void = () => {}) {
    this.#onRemembered = onRemembered;
  }

  /**
   * decodeBytes' result for `body` without its unread arrays (bytes.ts); from the memo when the same body but for
   * its spans was met twice before.
   */
  decode(whole: Buffer): DecodeResult {
    const body = withoutUnreadArrays(whole);
    const count = body.byteLength <= LARGEST_KEPT_BODY ? this.#findSpans(body) : 0;
    if (count === 0) return decodeBytes(body);
    const length = this.#gatherRest(body, count);
    const hash = bytesHash(this.#rest, this.#words, length);
    const kept = this.#kept.get(hash);
    if (kept !== undefined && this.#sameRest(kept, count, length)) {
      if (kept.known === undefined) return decodeBytes(body);
      this.#onRemembered();
      const { review, plan } = kept.known;
      return { ok: true, review: rebuilt(review, plan, this.#texts(body, count)) as AdmissionReviewRequest };
    }

    const decoded = decodeBytes(body);
    if (decoded.ok && this.#seen.saw(hash)) {
      const plan = this.#planFor(body, count, decoded.review);
      const rest = Buffer.allocUnsafeSlow(length);
      rest.set(this.#rest.subarray(0, length));
      const known = plan === undefined ? undefined : { review: decoded.review, plan };
      this.#kept.set(hash, { rest, spansAt: this.#spansAt(count), known });
    }
    return decoded;
  }

  /** The spans of `body` into #spans, in order, the uid first; 0 when it has no uid the memo can take. */
  #findSpans(body: Buffer): number {
    const keyAt = body.indexOf(UID_KEY);
    if (keyAt === -1) return 0;
    const uidAt = keyAt + UID_KEY.length;
    const uidEnd = uidEndAt(body, uidAt);
    if (uidEnd === -1) return 0;
    const spans = this.#spans;
    spans[0] = uidAt;
    spans[1] = uidEnd;
    let count = 1;
    // A generated name is where the API server writes one, before generateName (request.name, then metadata.name
    // first in the metadata): only that part of the body is searched, for generateName's value (a needle that
    // starts with a byte as common as '"' took four to twenty times as long).
    const generateNameAt = body.indexOf(GENERATE_NAME_KEY, uidEnd);
    const prefix = generateNameAt === -1 ? undefined : generateNameIn(body, generateNameAt);
    if (prefix === undefined) return count;
    const named = body.subarray(0, generateNameAt);
    let lastEnd = uidEnd;
    let nameCandidates = 0;
    for (let name = named.indexOf(prefix, uidEnd); name !== -1; name = named.indexOf(prefix, name + 1)) {
      // A generateName of one letter would otherwise let a hostile body make a search of each of its bytes.
      if (++nameCandidates > MOST_SPANS) return 0;
      const end = name + prefix.byteLength + GENERATED_LENGTH;
      if (name < lastEnd || !isWholeName(body, name, end)) continue;
      if (count === MOST_SPANS) return 0;
      spans[3 * count] = name;
      spans[3 * count + 1] = end;
      lastEnd = end;
      count++;
    }
    return count;
  }

  /** Copies the body without its spans into #rest, noting where each span was in it; its length. */
  #gatherRest(body: Buffer, count: number): number {
    const spans = this.#spans;
    let length = 0;
    let from = 0;
    for (let span = 0; span < count; span++) {
      const start = spans[3 * span]!;
      body.copy(this.#rest, length, from, start);
      length += start - from;
      spans[3 * span + 2] = length;
      from = spans[3 * span + 1]!;
    }
    body.copy(this.#rest, length, from);
    return length + body.byteLength - from;
  }

  #sameRest(kept: KeptBody, count: number, length: number): boolean {
    if (kept.spansAt.length !== count) return false;
    for (let span = 0; span < count; span++) if (kept.spansAt[span] !== this.#spans[3 * span + 2]) return false;
    return kept.rest.compare(this.#rest, 0, length) === 0;
  }

  #spansAt(count: number): Int32Array {
    const at = new Int32Array(count);
    for (let span = 0; span < count; span++) at[span] = this.#spans[3 * span + 2]!;
    return at;
  }

  #texts(body: Buffer, count: number): string[] {
    const texts: string[] = [];
    for (let span = 0; span < count; span++)
      texts.push(body.toString('latin1', this.#spans[3 * span]!, this.#spans[3 * span + 1]!));
    return texts;
  }

  /** Where each span's value goes in `review`, once shown by parsing the body again with every span changed. */
  #planFor(body: Buffer, count: number, review: AdmissionReviewRequest): Plan | undefined {
    const paths = spanPaths(review.request);
    if (paths.length !== count || review.request.uid !== body.toString('latin1', this.#spans[0], this.#spans[1]))
      return undefined;
    const changed = this.#changed;
    body.copy(changed);
    const probes = this.#texts(body, count).map((text, span) => probeFor(span, text));
    probes.forEach((probe, span) => changed.write(probe, this.#spans[3 * span]!, 'latin1'));
    const parsed: unknown = JSON.parse(changed.toString('utf8', 0, body.byteLength));
    return paths.every((path, span) => valueAt(parsed, path) === probes[span]) ? planOf(paths) : undefined;
  }
}

/** Where the uid starting at `from` ends (its closing quote), or -1 if it is empty, too long or needs escapes. */
function uidEndAt(body: Buffer, from: number): number {
  const last = Math.min(body.byteLength, from + LONGEST_UID + 1);
  for (let at = from; at < last; at++) {
    const byte = body[at]!;
    if (byte === QUOTE) return at > from ? at : -1;
    if (byte < 0x20 || byte > 0x7e || byte === BACKSLASH) return -1;
  }
  return -1;
}

function allOf(body: Buffer, from: number, end: number, isWanted: (byte: number) => boolean): boolean {
  for (let at = from; at < end; at++) if (!isWanted(body[at]!)) return false;
  return true;
}

const isNameByte = (byte: number): boolean => (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39);

/** A DNS subdomain's letters, digits, '-' and '.': what generateName may hold, none of which JSON escapes. */
const isSubdomainByte = (byte: number): boolean => isNameByte(byte) || byte === 0x2d || byte === 0x2e;

/** Whether `start`..`end` is a whole JSON string that ends in five letters or digits. */
function isWholeName(body: Buffer, start: number, end: number): boolean {
  return body[start - 1] === QUOTE && body[end] === QUOTE && allOf(body, end - GENERATED_LENGTH, end, isNameByte);
}

/** The value of the generateName key at `keyAt`, as bytes of the body, if it is one a name can be made from. */
function generateNameIn(body: Buffer, keyAt: number): Buffer | undefined {
  if (body[keyAt - 1] !== QUOTE) return undefined;
  const start = keyAt + GENERATE_NAME_KEY.length;
  const last = Math.min(body.byteLength, start + LONGEST_GENERATE_NAME + 1);
  for (let at = start; at < last; at++) {
    const byte = body[at]!;
    if (byte === QUOTE) return at > start ? body.subarray(start, at) : undefined;
    if (!isSubdomainByte(byte)) return undefined;
  }
  return undefined;
}

/** Whether `name` is `generateName` and the five characters the API server draws. */
function isGenerated(name: unknown, generateName: unknown): boolean {
  return (
    typeof name === 'string' &&
    typeof generateName === 'string' &&
    generateName !== '' &&
    name.length === generateName.length + GENERATED_LENGTH &&
    name.startsWith(generateName) &&
    GENERATED.test(name.slice(generateName.length))
  );
}

const GENERATED = /^[a-z0-9]{5}$/;

/** request.uid, then the names drawn from generateName, where the API server puts them. */
function spanPaths(request: AdmissionRequest): Path[] {
  const paths: Path[] = [['request', 'uid']];
  const metadata = isRecord(request.object) && isRecord(request.object.metadata) ? request.object.metadata : {};
  if (isGenerated(request.name, metadata.generateName)) paths.push(['request', 'name']);
  if (isGenerated(metadata.name, metadata.generateName)) paths.push(['request', 'object', 'metadata', 'name']);
  return paths;
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const key of path)
    value = isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function planOf(paths: readonly Path[]): Plan {
  type Node = Map<string | number, Node | number>;
  const root: Node = new Map();
  paths.forEach((path, span) => {
    let node = root;
    path.slice(0, -1).forEach((key) => {
      let child = node.get(key);
      if (typeof child !== 'object') node.set(key, (child = new Map()));
      node = child;
    });
    node.set(path.at(-1)!, span);
  });
  const frozen = (node: Node): Plan =>
    [...node].map(([key, child]) => [key, typeof child === 'number' ? child : frozen(child)] as const);
  return frozen(root);
}

/** `value` with each planned path given its span's text: copies of the containers on the way, the rest shared. */
function rebuilt(value: unknown, plan: Plan, texts: readonly string[]): unknown {
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  for (const [key, next] of plan) copy[key] = typeof next === 'number' ? texts[next] : rebuilt(copy[key], next, texts);
  return copy;
}

/**
 * A text for span `span` to be parsed with in place of `text`, of its length and unlike it, that holds no other
 * span's (the uid's only 'x' and 'y'; a generated name's its span's number in six digits or more, nothing else).
 */
function probeFor(span: number, text: string): string {
  if (span === 0) return text.replace(/./g, (character) => (character === 'x' ? 'y' : 'x'));
  const numbered = (number: number) => String(number).padStart(text.length, '0');
  const probe = numbered(span);
  return probe === text ? numbered(span + MOST_SPANS) : probe;
}

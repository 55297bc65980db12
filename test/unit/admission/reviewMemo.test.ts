import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decodeBytes, withoutUnreadArrays } from '../../../src/admission/bytes.ts';
import type { DecodeResult } from '../../../src/admission/decode.ts';
import type { AdmissionReviewRequest } from '../../../src/admission/review.ts';
import { LARGEST_KEPT_BODY, REVIEW_MEMO_LIMIT, ReviewMemo } from '../../../src/admission/reviewMemo.ts';

interface BodyParts {
  readonly pod?: string;
  /** The five characters the ServiceAccount plugin drew for the token volume's name. */
  readonly token?: string;
  /** managedFields' time. */
  readonly time?: string;
  /** Inside request, before its uid. */
  readonly head?: string;
  /** The token volume's fields after its name. */
  readonly volume?: string;
  /** Inside request, after the Pod. */
  readonly tail?: string;
  /** The five characters drawn for the Pod's name after its generateName, sent in request.name and metadata.name. */
  readonly named?: string;
}

/** A review as the API server writes it: request.uid first, then the Pod with its token volume and mount. */
function body(
  uid: string,
  {
    pod = 'web',
    token = 'x7k2q',
    time = '2026-12-05T00:36:20Z',
    head = '',
    volume = '',
    tail = '',
    named,
  }: BodyParts = {},
): Buffer {
  const name = `kube-api-access-${token}`;
  const podName = named === undefined ? '' : `"name":"${pod}-${named}",`;
  return Buffer.from(
    `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{${head}"uid":"${uid}",` +
      `"kind":{"group":"","version":"v1","kind":"Pod"},${podName}"namespace":"shop","operation":"CREATE",` +
      `"object":{"metadata":{${podName}"generateName":"${pod}-","ownerReferences":[{"kind":"ReplicaSet","uid":"rs-1"}],` +
      `"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1",` +
      `"time":"${time}","fieldsType":"FieldsV1","fieldsV1":{}}]},` +
      `"spec":{"volumes":[{"name":"${name}"${volume},"projected":{"defaultMode":420}}],` +
      `"containers":[{"name":"c","image":"i","volumeMounts":[{"name":"${name}","mountPath":"/var/run"}]},` +
      `{"name":"d","image":"i","volumeMounts":[{"name":"${name}","mountPath":"/var/run"}]}]}}${tail}}}`,
  );
}

function metadata(decoded: AdmissionReviewRequest): Record<string, any> {
  return (decoded.request.object as { metadata: Record<string, any> }).metadata;
}

/** Shared by the reviews given from the memo with the one kept: no span is in it. */
function owners(decoded: AdmissionReviewRequest): unknown {
  return metadata(decoded).ownerReferences;
}

function review(result: DecodeResult) {
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.review;
}

/** What parsing the body gives, without the memo: its unread arrays cut, the rest decoded. */
const parsed = (bytes: Buffer): DecodeResult => decodeBytes(withoutUnreadArrays(bytes));

test('the same body but for its uid is parsed twice, then given back with each new uid', () => {
  const memo = new ReviewMemo();
  const first = review(memo.decode(body('u-1')));
  const second = review(memo.decode(body('u-2')));
  const third = review(memo.decode(body('u-3')));
  const fourth = review(memo.decode(body('u-4')));
  assert.notEqual(owners(second), owners(first), 'a first sight is only noted');
  assert.equal(owners(third), owners(second), 'kept from the second sight');
  assert.equal(owners(fourth), owners(second));
  assert.deepEqual(
    [first, second, third, fourth].map((each) => each.request.uid),
    ['u-1', 'u-2', 'u-3', 'u-4'],
  );
  assert.deepEqual(third, review(parsed(body('u-3'))), 'what parsing it would give');
});

test("the token volume, its mounts and managedFields are never parsed: each replica's own are the same body", () => {
  const memo = new ReviewMemo();
  memo.decode(body('u-1', { token: 'aaaaa', time: '2026-12-05T00:36:20Z' }));
  const kept = review(memo.decode(body('u-2', { token: 'bbbbb', time: '2026-12-05T00:36:21Z' })));
  const later = { token: 'c9d8e', time: '2026-12-05T00:37:02Z' };
  const given = review(memo.decode(body('u-3', later)));
  assert.equal(owners(given), owners(kept), 'given from the memo');
  assert.deepEqual(given, review(parsed(body('u-3', later))), 'what parsing it would give');
  const spec = (each: typeof given) => (each.request.object as { spec: Record<string, any> }).spec;
  assert.equal(spec(given).volumes, undefined);
  assert.deepEqual(spec(given).containers[1], { name: 'd', image: 'i' }, 'no volumeMounts');
  assert.equal(metadata(given).managedFields, undefined);
  assert.equal(metadata(given).generateName, 'web-', 'the rest is there');
});

test("a Pod named before admission: each replica's own name is put in request.name and metadata.name", () => {
  const memo = new ReviewMemo();
  memo.decode(body('u-1', { named: 'aaaaa', token: 'aaaaa' }));
  const kept = review(memo.decode(body('u-2', { named: 'b2c4d', token: 'bbbbb' })));
  const parts = { named: 'z9q8r', token: 'ccccc' };
  const given = review(memo.decode(body('u-3', parts)));
  assert.equal(owners(given), owners(kept), 'given from the memo');
  assert.deepEqual(given, review(parsed(body('u-3', parts))), 'what parsing it would give');
  assert.equal(given.request.name, 'web-z9q8r');
  assert.equal(metadata(given).name, 'web-z9q8r');
  assert.equal(metadata(kept).name, 'web-b2c4d', 'the kept review is not changed');
});

test('a name that is not generateName and five letters or digits is the body, not a span', () => {
  const memo = new ReviewMemo();
  const names = ['aaaaa', 'bbbbb', 'ccccc'].map((named) => {
    // A sixth character: the name is no longer generateName and the five the API server draws.
    const bytes = body(`u-${named}`, { named: `${named}x` });
    const decoded = review(memo.decode(bytes));
    assert.deepEqual(decoded, review(parsed(bytes)));
    return owners(decoded);
  });
  assert.equal(new Set(names).size, 3, 'every body parsed');
});

test('a body full of a one-letter generateName is parsed, not searched letter by letter', () => {
  const memo = new ReviewMemo();
  // Between the uid and generateName, where names are searched: 10,000 places that start like the name.
  const padding = `"args":"${'a-'.repeat(10_000)}",`;
  const decoded = ['1', '2', '3'].map((uid) => {
    const plain = body(uid, { pod: 'a', named: 'bcdef' }).toString();
    const bytes = Buffer.from(plain.replace('"operation":"CREATE",', `"operation":"CREATE",${padding}`));
    const result = memo.decode(bytes);
    assert.deepEqual(result, parsed(bytes));
    return owners(review(result));
  });
  assert.notEqual(decoded[2], decoded[1], 'never given from the memo');
});

test('a uid of another length is the same body', () => {
  const memo = new ReviewMemo();
  memo.decode(body('705ab4f5-6393-11e8-b7cc-42010a800002'));
  const kept = review(memo.decode(body('a')));
  const given = review(memo.decode(body('9f1c0e6a-0001')));
  assert.equal(owners(given), owners(kept));
  assert.deepEqual(given, review(parsed(body('9f1c0e6a-0001'))));
});

test('a body that differs anywhere but the uid is another body', () => {
  const memo = new ReviewMemo();
  memo.decode(body('u-1'));
  const web = review(memo.decode(body('u-2')));
  const api = review(memo.decode(body('u-3', { pod: 'api' })));
  assert.notEqual(owners(api), owners(web));
  assert.deepEqual(api, review(parsed(body('u-3', { pod: 'api' }))));
});

test('a later "uid" key of the same value, plain or escaped, is request.uid: never given from the memo', () => {
  for (const key of ['"uid"', '"u\\u0069d"']) {
    const memo = new ReviewMemo();
    // The span reads "A" on the second sight, as the later key does: only changing the span shows it is not the uid.
    const uids = ['B', 'A', 'C', 'D'].map((uid) => review(memo.decode(body(uid, { tail: `,${key}:"A"` }))).request.uid);
    assert.deepEqual(uids, ['A', 'A', 'A', 'A'], key);
  }
});

test('a drawn name that is a key, in a longer string, or overridden by a later key: never given from the memo', () => {
  const cases: Record<string, (drawn: string) => string> = {
    key: (drawn) => `"labels":{"web-${drawn}":"x"},`,
    'longer string': (drawn) => `"note":"--at=\\"web-${drawn}\\"",`,
    // request.name is a span; the later, escaped "name" is the value JSON keeps.
    overridden: () => `"name":"web-\\u0061bcde",`,
  };
  for (const [label, middle] of Object.entries(cases)) {
    const memo = new ReviewMemo();
    const decoded = ['aaaaa', 'bbbbb', 'ccccc', 'ddddd'].map((drawn) => {
      const plain = body(drawn, { named: label === 'overridden' ? drawn : undefined }).toString();
      const bytes = Buffer.from(plain.replace('"operation":"CREATE",', `"operation":"CREATE",${middle(drawn)}`));
      const result = memo.decode(bytes);
      assert.deepEqual(result, parsed(bytes), `${label}, ${drawn}`);
      return owners(review(result));
    });
    assert.notEqual(decoded[3], decoded[2], `${label}: never given from the memo`);
  }
});

test('a later "request" key is the request: never given from the memo', () => {
  const memo = new ReviewMemo();
  const later = '},"request":{"uid":"A","operation":"DELETE"';
  const decoded = ['B', 'A', 'C'].map((uid) => review(memo.decode(body(uid, { tail: later }))).request);
  assert.deepEqual(
    decoded.map(({ uid, operation }) => `${uid} ${operation}`),
    ['A DELETE', 'A DELETE', 'A DELETE'],
  );
});

test('a uid that JSON escapes, or none, or a body over the limit: parsed every time', () => {
  const padded = (uid: string) => body(uid, { tail: `,"padding":"${'x'.repeat(LARGEST_KEPT_BODY)}"` });
  const cases: [string, (uid: string) => Buffer][] = [
    ['escaped', (uid) => body(`${uid}\\u00e9`)],
    ['empty', () => body('')],
    ['too long', (uid) => body(uid.repeat(200))],
    ['over the limit', padded],
  ];
  for (const [label, make] of cases) {
    const memo = new ReviewMemo();
    const objects = ['x', 'x', 'x'].map((uid) => memo.decode(make(uid)));
    const [, second, third] = objects.map((result) => (result.ok ? owners(result.review) : result.message));
    if (label === 'empty')
      assert.equal(third, 'not an AdmissionReview: request.uid is missing: it must be a non-empty string');
    else assert.notEqual(third, second, label);
  }
});

test('bad bodies keep their errors, however often they come', () => {
  const memo = new ReviewMemo();
  const cases = [
    [Buffer.from([0x7b, 0xff, 0x7d]), 'the body is not valid UTF-8 JSON'],
    [Buffer.from('{"request":{"uid":"a"'), /^the body is not JSON: /],
    [Buffer.from('{"kind":"AdmissionReview","request":{"uid":"a"}}'), /^not an AdmissionReview: apiVersion is missing/],
    [Buffer.from('{"request":{"uid":"a","x":{"__proto__":1}}}'), /^the key "__proto__" is not allowed/],
  ] as const;
  for (let round = 0; round < 3; round++)
    for (const [bytes, message] of cases) {
      const result = memo.decode(bytes);
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.message, typeof message === 'string' ? new RegExp(`^${message}$`) : message);
    }
});

test('keeps the bodies of the last REVIEW_MEMO_LIMIT workloads', () => {
  const memo = new ReviewMemo();
  const pods = Array.from({ length: REVIEW_MEMO_LIMIT + 1 }, (_, index) => `w${index}`);
  const keptObjects = new Map<string, unknown>();
  for (const pod of pods) {
    memo.decode(body('a', { pod }));
    keptObjects.set(pod, owners(review(memo.decode(body('b', { pod })))));
  }
  const given = (pod: string) => owners(review(memo.decode(body('c', { pod })))) === keptObjects.get(pod);
  assert.equal(given(pods.at(-1)!), true, 'the newest');
  assert.equal(given(pods[0]!), false, 'the oldest was let go');
});

test('through the memo or not, every body decodes the same', () => {
  const uid = fc.stringMatching(/^[ -!#-[\]-~]{1,40}$/);
  const token = fc.stringMatching(/^[a-z0-9]{5}$/);
  const time = fc
    .integer({ min: 0, max: 4_102_444_799_000 })
    .map((ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  const extra = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
  fc.assert(
    fc.property(
      fc.array(fc.tuple(uid, token, time, token), { minLength: 3, maxLength: 6 }),
      extra,
      extra,
      fc.nat(3),
      fc.constantFrom('', 'web-', 'kube-api-access-', 'x'),
      (sights, request, object, mounts, generateName) => {
        const memo = new ReviewMemo();
        const make = (id: string, suffix: string, at: string, drawn: string) => {
          const named = generateName === '' ? {} : { name: `${generateName}${drawn}`, generateName };
          const volume = { name: `kube-api-access-${suffix}` };
          const containers = Array.from({ length: mounts }, (_, index) => ({
            name: `c${index}`,
            volumeMounts: [volume],
          }));
          const metadata = {
            ...named,
            managedFields: ['m', 'n'].map((manager) => ({ manager, time: at, fieldsType: 'FieldsV1' })),
          };
          const pod = { kind: 'Pod', ...object, metadata, spec: { volumes: [volume], containers } };
          return Buffer.from(
            JSON.stringify({
              kind: 'AdmissionReview',
              apiVersion: 'admission.k8s.io/v1',
              request: {
                uid: id,
                ...(named.name && { name: named.name }),
                operation: 'CREATE',
                ...request,
                object: pod,
              },
            }),
          );
        };
        for (const [id, suffix, at, drawn] of sights)
          assert.deepEqual(memo.decode(make(id, suffix, at, drawn)), parsed(make(id, suffix, at, drawn)));
      },
    ),
  );
});

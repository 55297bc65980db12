import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson } from '../../../src/admission/json.ts';

test('parses ordinary JSON', () => {
  assert.deepEqual(parseJson('{"a":[1,{"b":null}]}'), { ok: true, value: { a: [1, { b: null }] } });
});

test("says a body that is not JSON is not JSON, with the parser's reason", () => {
  const result = parseJson('{"a":');
  assert.equal(result.ok, false);
  assert.match(!result.ok ? result.message : '', /^the body is not JSON: /);
});

test('refuses "__proto__" keys wherever they are, naming where, and pollutes nothing', () => {
  const result = parseJson('{"request":{"object":{"metadata":{"labels":{"__proto__":{"polluted":true}}}}}}');
  assert.deepEqual(result, {
    ok: false,
    message: 'the key "__proto__" is not allowed (at /request/object/metadata/labels/__proto__)',
  });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('accepts "constructor" and "prototype" as plain data (they are legal label keys)', () => {
  const result = parseJson('{"constructor":{"prototype":{"polluted":true}}}');
  assert.equal(result.ok, true);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('bounds the depth, iteratively, even far beyond what a recursive walk survives', () => {
  const depth = 200_000;
  const result = parseJson('['.repeat(depth) + ']'.repeat(depth));
  assert.deepEqual(result, {
    ok: false,
    message: `the body nests deeper than 128 levels (at /${Array(128).fill(0).join('/')})`,
  });
  assert.equal(parseJson('['.repeat(128) + ']'.repeat(128)).ok, true);
});

test('escapes "/" and "~" in the reported pointer', () => {
  const result = parseJson('{"a/b":{"c~d":{"__proto__":1}}}');
  assert.deepEqual(result, { ok: false, message: 'the key "__proto__" is not allowed (at /a~1b/c~0d/__proto__)' });
});

test('refuses "__proto__" spelled with escapes, as JSON.parse decodes it', () => {
  assert.deepEqual(parseJson('{"a":[{"\\u005f_pr\\u006fto__":{}}]}'), {
    ok: false,
    message: 'the key "__proto__" is not allowed (at /a/0/__proto__)',
  });
});

test('accepts exactly the deepest nesting allowed in objects, and refuses one more', () => {
  const nest = (levels: number): string => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
  assert.equal(parseJson(nest(128)).ok, true);
  const refused = parseJson(nest(129));
  assert.match(refused.ok ? 'accepted' : refused.message, /^the body nests deeper than 128 levels \(at \/a\/a/);
});

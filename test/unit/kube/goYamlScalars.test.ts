// go-yaml v2's scalar resolution (kubectl's reader), form by form: topogate reads each plain scalar as the
// table says go-yaml's rules do, writes a string back so that it reads as that string again, and never turns
// a value into null (test/e2e/yaml11.test.ts checks the same table against the real kubectl).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveGoYamlV2 } from '../../../src/kube/goYamlScalars.ts';
import { documentValue, parseKubectlYaml, stringifyForKubectl } from '../../../src/kube/yaml.ts';
import { GO_YAML_V2_SCALARS } from '../../fixtures/go-yaml-v2-scalars.ts';

function read(text: string): { value?: unknown; errors: string[] } {
  const [document] = parseKubectlYaml(`h: ${text}\n`);
  assert.ok(document);
  if (document.errors.length > 0) return { errors: document.errors.map((error) => error.message) };
  return { value: (documentValue(document) as { h: unknown }).h, errors: [] };
}

for (const { text, reads, rule } of GO_YAML_V2_SCALARS) {
  test(`plain ${text} reads as go-yaml v2 reads it (${rule})`, () => {
    const { value, errors } = read(text);
    if (reads === undefined) {
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /JSON cannot hold/);
    } else {
      assert.deepEqual(errors, []);
      assert.deepEqual(value, reads);
    }
  });
}

test('a string written for kubectl reads back as that string, whatever it looks like', () => {
  for (const { text } of GO_YAML_V2_SCALARS) {
    const written = stringifyForKubectl({ h: text });
    assert.deepEqual(read(written.slice('h: '.length).trimEnd()).value, text, written);
  }
});

test('a string is written plain where go-yaml reads it as a string, and quoted where it would not', () => {
  assert.equal(stringifyForKubectl({ h: 'e318246315' }), 'h: e318246315\n');
  assert.equal(stringifyForKubectl({ h: '08' }), 'h: "08"\n');
  assert.equal(stringifyForKubectl({ h: '0b-101' }), 'h: "0b-101"\n');
});

test('the issue: labels e318246315, -e5 and E7 stay strings through a read and a write', () => {
  const [document] = parseKubectlYaml('metadata:\n  labels: {h: e318246315, i: -e5, j: E7}\n');
  const value = documentValue(document!);
  assert.deepEqual(value, { metadata: { labels: { h: 'e318246315', i: '-e5', j: 'E7' } } });
  assert.doesNotMatch(stringifyForKubectl(value), /null/);
});

test('an explicit tag is read by the same rules, and one of another kind is refused, never null', () => {
  assert.deepEqual(read('!!int "12"'), { value: 12, errors: [] });
  assert.deepEqual(read('!!float "12"'), { value: 12, errors: [] });
  assert.match(read('!!int e5').errors[0]!, /cannot read "e5" as !!int/);
});

test('resolveGoYamlV2 names the kind', () => {
  assert.deepEqual(resolveGoYamlV2('0x1F'), { kind: 'int', value: 31 });
  assert.deepEqual(resolveGoYamlV2('1e5'), { kind: 'float', value: 100000 });
  assert.deepEqual(resolveGoYamlV2('Off'), { kind: 'bool', value: false });
  assert.deepEqual(resolveGoYamlV2('e5'), { kind: 'str', value: 'e5' });
});

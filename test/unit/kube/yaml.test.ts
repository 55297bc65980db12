// YAML read and written as kubectl reads it (YAML 1.1 over go-yaml v2). The
// expected readings are what kubectl v1.37 printed for the same scalars
// (`kubectl label --local -f - -o json`); test/e2e/yaml11.test.ts asks the real
// kubectl again, on whole manifests.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { documentValue, parseKubectlYaml, stringifyForKubectl, YamlTagError } from '../../../src/kube/yaml.ts';

const asKubectlReads: readonly [string, unknown][] = [
  ['0400', 256],
  ['0755', 493],
  ['0o700', 448],
  ['0O17', 15],
  ['0x1F', 31],
  ['0X1f', 31],
  ['0b101', 5],
  ['1_000', 1000],
  ['+12', 12],
  ['-010', -8],
  ['1e3', 1000],
  ['yes', true],
  ['Yes', true],
  ['YES', true],
  ['y', true],
  ['Y', true],
  ['on', true],
  ['On', true],
  ['true', true],
  ['no', false],
  ['n', false],
  ['N', false],
  ['off', false],
  ['Off', false],
  ['OFF', false],
  ['false', false],
  ['~', null],
  ['null', null],
  ['190:20:30', '190:20:30'],
  ['2001-12-14', '2001-12-14'],
  ['2001-12-14t21:59:43.10-05:00', '2001-12-14t21:59:43.10-05:00'],
  ['"no"', 'no'],
  ["'0400'", '0400'],
  ['yesterday', 'yesterday'],
  ['0.5', 0.5],
];

function read(scalar: string): unknown {
  const [document] = parseKubectlYaml(`value: ${scalar}\n`);
  assert.ok(document);
  assert.deepEqual(document.errors, []);
  return (document.toJS() as { value: unknown }).value;
}

for (const [scalar, expected] of asKubectlReads) {
  test(`${scalar} reads as kubectl reads it: ${JSON.stringify(expected)}`, () => {
    assert.deepEqual(read(scalar), expected);
  });
}

test('keys read as kubectl reads them: on: is the key "true"', () => {
  const [document] = parseKubectlYaml('on: push\n"no": 1\n');
  assert.deepEqual(document?.toJS(), { true: 'push', no: 1 });
});

test('every string that YAML 1.1 would read as something else is written quoted, and reads back the same', () => {
  const strings = [
    ...asKubectlReads.map(([scalar]) => scalar).filter((scalar) => !/^["']/.test(scalar)),
    'y',
    'NO',
    '.inf',
    '-.Inf',
    '.NaN',
    '0o17',
    '=',
    '<<',
  ];
  const text = stringifyForKubectl({ args: strings });
  const [document] = parseKubectlYaml(text);
  assert.deepEqual(document?.toJS(), { args: strings }, text);
  for (const word of ['no', 'yes', 'on', 'off', 'y', 'n', '0400', '0o700', '0x1F', '1_000'])
    assert.match(text, new RegExp(`^  - "${word}"$`, 'm'), `${word} is quoted`);
});

test('numbers are written in decimal: defaultMode 0400 comes out as 256, not 400', () => {
  const [document] = parseKubectlYaml('defaultMode: 0400\nmode: 0o644\n');
  const text = stringifyForKubectl(document?.toJS());
  assert.equal(text, 'defaultMode: 256\nmode: 420\n');
  // What YAML 1.2 (the yaml package's default) would make of the input: the mistake this prevents.
  assert.deepEqual(parse('defaultMode: 0400\n'), { defaultMode: 400 });
});

const MIXED = `spread:
  topologyKey: topology.kubernetes.io/zone
  whenUnsatisfiable: ScheduleAnyway
  maxSkew: 1
  ratio: .inf
  on: yes
  none: ~
  keys: [pod-template-hash, "quoted string value"]
base: &base { a: 1 }
copy: *base
`;

test('a document value is what toJS reads, strings and all', () => {
  const [document] = parseKubectlYaml(MIXED);
  assert.deepEqual(documentValue(document!), document!.toJS());
  const [bomb] = parseKubectlYaml(
    `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n`,
  );
  assert.throws(() => documentValue(bomb!, 10), /alias/i);
});

test('only plain tags are read: sets, ordered maps, binary and local tags are refused at the node they tag', () => {
  for (const [text, tag, offset] of [
    ['a: !!set {x, y}\n', '!!set', 9],
    ['a: [!!omap [x: 1]]\n', '!!omap', 11],
    ['? !!pairs [x: 1]\n: 1\n', '!!pairs', 10],
    ['a: !!binary aGVsbG8=\n', '!!binary', 12],
    ['a: !local x\n', '!local', 10],
    ['!!timestamp 2001-12-14\n', '!!timestamp', 12],
  ] as const) {
    const [document] = parseKubectlYaml(text);
    assert.throws(
      () => documentValue(document!),
      (error: YamlTagError) => {
        assert.ok(error instanceof YamlTagError, text);
        assert.match(error.message, new RegExp(`the tag ${tag} is not allowed`));
        assert.equal(error.offset, offset, text);
        return true;
      },
    );
  }
  const [plain] = parseKubectlYaml(
    'a: !!str 5\nb: !!int "7"\nc: !!map {d: !!seq [!!null null, !!bool true, !!float 1.5]}\n',
  );
  assert.deepEqual(documentValue(plain!), { a: '5', b: 7, c: { d: [null, true, 1.5] } });
});

// V8's representation of a string, seen in a child process through %DebugPrint (V8's own stdout buffer, so
// nothing else is printed there): the yaml library's own strings are slices of the source, which JSON.stringify
// serialises off its fast path. One process each, since making the flat copy turns the library's string into
// a pointer to it in place.
async function representations(read: 'toJS' | 'documentValue'): Promise<string> {
  const script = `
    const { documentValue, parseKubectlYaml } = await import(${JSON.stringify(new URL('../../../src/kube/yaml.ts', import.meta.url).href)});
    const [document] = parseKubectlYaml(${JSON.stringify(MIXED)});
    const value = ${read === 'toJS' ? 'document.toJS()' : 'documentValue(document)'};
    for (const text of [value.spread.topologyKey, value.spread.whenUnsatisfiable, value.spread.keys[1]]) %DebugPrint(text);`;
  const run = promisify(execFile);
  return (await run(process.execPath, ['--allow-natives-syntax', '--input-type=module', '--eval', script])).stdout;
}

test('a document value holds its own flat strings, not slices of the source text', async () => {
  // Plain scalars are slices; a quoted one the library builds anew.
  const library = await representations('toJS');
  assert.equal(library.match(/type: SLICED/g)?.length, 2, 'the library slices (else this test proves nothing)');
  const own = await representations('documentValue');
  assert.equal(own.match(/type: (SEQ|INTERNALIZED)_/g)?.length, 3, own);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSection } from '../../../bench/sections.ts';

const report = '# Benchmarks\n\n## 6. Probe\nold probe\n\n## Soak\nsoak\n';

test('a section is replaced where it is, and the sections after it are kept', () => {
  assert.equal(
    withSection(report, '## 6. Probe', '## 6. Probe\nnew probe\n'),
    '# Benchmarks\n\n## 6. Probe\nnew probe\n\n## Soak\nsoak\n',
  );
});

test('the last section is replaced to the end; a new one is appended after a blank line', () => {
  assert.equal(
    withSection(report, '## Soak', '## Soak\nagain\n'),
    '# Benchmarks\n\n## 6. Probe\nold probe\n\n## Soak\nagain\n',
  );
  assert.equal(withSection(report, '## 7. Placement', '## 7. Placement\nnew\n'), `${report}\n## 7. Placement\nnew\n`);
});

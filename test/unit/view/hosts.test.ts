// DNS rebinding: the view answers only Host headers that name loopback or its
// own listen address.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostAllowed } from '../../../src/view/hosts.ts';

test('loopback names and the listen address are answered, with or without a port', () => {
  for (const host of ['localhost', 'localhost:8080', 'LOCALHOST.', 'view.localhost:80', '127.0.0.1:8080', '127.1.2.3'])
    assert.equal(hostAllowed(host, '127.0.0.1'), true, host);
  assert.equal(hostAllowed('[::1]:8080', '::1'), true);
  assert.equal(hostAllowed('10.1.2.3:8080', '10.1.2.3'), true, 'the listen address');
  assert.equal(hostAllowed('[fd00::5]:8080', 'fd00::5'), true, 'an IPv6 listen address');
});

test('any other name, a missing Host and a malformed one are refused', () => {
  for (const host of [
    'attacker.example',
    'attacker.example:8080',
    'localhost.attacker.example',
    '127.0.0.1.nip.io',
    '10.1.2.3',
    '',
    'localhost:8080:1',
    'local host',
  ])
    assert.equal(hostAllowed(host, '127.0.0.1'), false, host);
  assert.equal(hostAllowed(undefined, '127.0.0.1'), false);
  assert.equal(hostAllowed('0.0.0.0:8080', '0.0.0.0') && hostAllowed('pod.example', '0.0.0.0'), false);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isJson } from '../../../src/server/body.ts';
import { createDecisionCost, requestBudgetMs } from '../../../src/server/budget.ts';
import { parseDuration } from '../../../src/server/duration.ts';

test('reads Go durations as the API server and Kubernetes flags write them', () => {
  assert.equal(parseDuration('10s'), 10_000);
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('1.5h'), 5_400_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('500us'), 0.5);
  assert.equal(parseDuration('0'), 0);
  for (const bad of ['', '10', 's', '10x', '1m 30s', '-1s', '1s!']) assert.equal(parseDuration(bad), undefined, bad);
});

test("the budget is the shorter of --budget-ms and the request's timeout", () => {
  assert.equal(requestBudgetMs(5, undefined), 5);
  assert.equal(requestBudgetMs(5, 10_000), 5);
  assert.equal(requestBudgetMs(5, 2), 2);
});

test('the decision cost estimate starts at the first measurement and follows slowly', () => {
  const cost = createDecisionCost();
  assert.equal(cost.estimateMs(), 0);
  cost.record(1);
  assert.equal(cost.estimateMs(), 1);
  cost.record(11);
  assert.equal(cost.estimateMs(), 2);
});

test('JSON is application/json with any parameters', () => {
  assert.ok(isJson('application/json'));
  assert.ok(isJson('Application/JSON; charset=utf-8'));
  assert.ok(!isJson('application/jsonx'));
  assert.ok(!isJson('text/plain'));
  assert.ok(!isJson(undefined));
});

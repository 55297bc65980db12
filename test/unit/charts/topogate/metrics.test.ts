// The chart's Grafana dashboard and PrometheusRule query only metrics topogate
// registers: a renamed or guessed metric would be an empty panel or an alert
// that can never fire, which nothing else would notice.

import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { registerControlPlaneMetrics } from '../../../../src/controlplane/shell/metrics.ts';
import type { ControlPlaneStatus } from '../../../../src/ports/controlplane.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');
const sources = globSync('src/**/*.ts', { cwd: root }).map((path) => ({ path, text: read(path) }));

/** Every topogate_ metric the code registers: the literal names, and the control plane's, made from a prefix. */
function registeredNames(): Set<string> {
  const literal = sources.flatMap(({ text }) => [...text.matchAll(/name: '(topogate_[a-z0-9_]+)'/g)].map((m) => m[1]!));
  const registry = new Registry();
  registerControlPlaneMetrics(registry, () => ({}) as ControlPlaneStatus);
  const made = registry.getMetricsAsArray().map((metric) => metric.name);
  return new Set([...literal, ...made]);
}

/** The metric names a PromQL text refers to; a histogram's series by its own name. */
function referenced(text: string, registered: Set<string>): string[] {
  const names = [...text.matchAll(/\btopogate_[a-z0-9_]*/g)].map((m) => m[0]);
  return [...new Set(names)].map((name) => {
    const histogram = name.replace(/_(bucket|sum|count)$/, '');
    return registered.has(name) || !registered.has(histogram) ? name : histogram;
  });
}

const dashboard = read('charts/topogate/dashboards/topogate.json');
interface Panel {
  readonly targets?: readonly { expr: string }[];
  /** A collapsed row's. */
  readonly panels?: readonly Panel[];
}
const targetsOf = (panel: Panel): string[] => [
  ...(panel.targets ?? []).map((target) => target.expr),
  ...(panel.panels ?? []).flatMap(targetsOf),
];
const expressions = (JSON.parse(dashboard) as { panels: Panel[] }).panels.flatMap(targetsOf);
const rules = read('charts/topogate/templates/prometheusrule.yaml');

test('the metric names are found in the code: only the control plane makes its names from a prefix', () => {
  const made = sources.filter(({ text }) => /name: `topogate_/.test(text)).map(({ path }) => path);
  assert.deepEqual(made, ['src/controlplane/shell/metrics.ts']);
  const registered = registeredNames();
  for (const name of ['topogate_admission_requests_total', 'topogate_probe_rtt_seconds', 'topogate_open_connections'])
    assert.ok(registered.has(name), name);
  assert.ok([...registered].some((name) => name.startsWith('topogate_controlplane_')));
});

test('every metric the Grafana dashboard queries is registered, each by its exact name', () => {
  const registered = registeredNames();
  assert.ok(expressions.length > 10);
  const unknown = expressions.flatMap((expr) => referenced(expr, registered)).filter((name) => !registered.has(name));
  assert.deepEqual(unknown, []);
  assert.deepEqual(
    expressions.filter((expr) => expr.includes('__name__')),
    [],
    'no metric is matched by a pattern on its name',
  );
});

test('every metric the PrometheusRule alerts on is registered', () => {
  const registered = registeredNames();
  const names = referenced(rules, registered);
  assert.ok(names.length >= 4);
  assert.deepEqual(
    names.filter((name) => !registered.has(name)),
    [],
  );
});

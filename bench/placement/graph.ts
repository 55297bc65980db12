// A real application's service graph (bench/data/*.json): its services, and
// the calls each user task makes. Parsed once at the edge; the calls per
// second between services follow from the task weights.

import type { Edge } from './metrics.ts';

export interface Service {
  readonly name: string;
  readonly replicas: number;
  readonly requests: Readonly<Record<string, string>>;
  /** One replica that holds the state (its volume pins it): the bench never scales it. */
  readonly stateful: boolean;
}

interface Call {
  readonly from: string;
  readonly to: string;
  readonly call: string;
  readonly count: number;
}

export interface ServiceGraph {
  readonly name: string;
  readonly tasksPerSecond: number;
  readonly services: readonly Service[];
  readonly bytesPerCall: Readonly<Record<string, number>>;
  readonly pages: Readonly<Record<string, readonly Call[]>>;
  readonly tasks: readonly { readonly name: string; readonly weight: number; readonly pages: readonly string[] }[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function positive(value: unknown, where: string): number {
  if (typeof value !== 'number' || !(value > 0))
    throw new Error(`${where}: a positive number, not ${JSON.stringify(value)}`);
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${where}: a non-empty string`);
  return value;
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${where}: a list`);
  return value;
}

/** Checks every reference: a call names known services and a sized call, a task known pages. */
export function parseServiceGraph(input: unknown): ServiceGraph {
  if (!isRecord(input)) throw new Error('service graph: an object');
  const services = list(input['services'], 'services').map((s, i): Service => {
    if (!isRecord(s) || !isRecord(s['requests'])) throw new Error(`services[${i}]: {name, replicas, requests}`);
    return {
      name: text(s['name'], `services[${i}].name`),
      replicas: positive(s['replicas'], `services[${i}].replicas`),
      requests: Object.fromEntries(
        Object.entries(s['requests']).map(([k, v]) => [k, text(v, `services[${i}].requests.${k}`)]),
      ),
      stateful: s['stateful'] === true,
    };
  });
  const names = new Set(services.map((s) => s.name));
  if (!isRecord(input['bytesPerCall'])) throw new Error('bytesPerCall: an object');
  const bytesPerCall = Object.fromEntries(
    Object.entries(input['bytesPerCall']).map(([k, v]) => [k, positive(v, `bytesPerCall.${k}`)]),
  );
  if (!isRecord(input['pages'])) throw new Error('pages: an object');
  const pages = Object.fromEntries(
    Object.entries(input['pages']).map(([page, calls]) => [
      page,
      list(calls, `pages.${page}`).map((c, i): Call => {
        const where = `pages.${page}[${i}]`;
        if (!isRecord(c)) throw new Error(`${where}: {from, to, call, count}`);
        const call: Call = {
          from: text(c['from'], `${where}.from`),
          to: text(c['to'], `${where}.to`),
          call: text(c['call'], `${where}.call`),
          count: positive(c['count'], `${where}.count`),
        };
        for (const side of [call.from, call.to]) if (!names.has(side)) throw new Error(`${where}: no service ${side}`);
        if (bytesPerCall[call.call] === undefined) throw new Error(`${where}: no bytesPerCall for ${call.call}`);
        return call;
      }),
    ]),
  );
  const tasks = list(input['tasks'], 'tasks').map((t, i) => {
    if (!isRecord(t)) throw new Error(`tasks[${i}]: {name, weight, pages}`);
    const taskPages = list(t['pages'], `tasks[${i}].pages`).map((p, j) => text(p, `tasks[${i}].pages[${j}]`));
    for (const page of taskPages) if (!pages[page]) throw new Error(`tasks[${i}]: no page ${page}`);
    return {
      name: text(t['name'], `tasks[${i}].name`),
      weight: positive(t['weight'], `tasks[${i}].weight`),
      pages: taskPages,
    };
  });
  return {
    name: text(input['name'], 'name'),
    tasksPerSecond: positive(input['tasksPerSecond'], 'tasksPerSecond'),
    services,
    bytesPerCall,
    pages,
    tasks,
  };
}

/** Calls per second and mean bytes per call between each pair of services, at the graph's task rate. */
export function serviceEdges(graph: ServiceGraph): Edge[] {
  const totalWeight = graph.tasks.reduce((sum, t) => sum + t.weight, 0);
  const edges = new Map<string, { from: string; to: string; calls: number; bytes: number }>();
  for (const task of graph.tasks) {
    const tasksPerSecond = (graph.tasksPerSecond * task.weight) / totalWeight;
    for (const page of task.pages)
      for (const call of graph.pages[page] ?? []) {
        const key = `${call.from}\u0000${call.to}`;
        const edge = edges.get(key) ?? { from: call.from, to: call.to, calls: 0, bytes: 0 };
        edge.calls += tasksPerSecond * call.count;
        edge.bytes += tasksPerSecond * call.count * graph.bytesPerCall[call.call]!;
        edges.set(key, edge);
      }
  }
  return [...edges.values()].map((e) => ({
    from: e.from,
    to: e.to,
    callsPerSecond: e.calls,
    bytesPerCall: e.bytes / e.calls,
  }));
}

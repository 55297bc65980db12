// The Prometheus text exposition format, as far as reading etcd's gauges and
// histograms needs: `name{label="value",…} number [timestamp]` lines.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?\s*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Samples of the given metric names (all when none given); lines it cannot read are skipped. */
export function parsePrometheusText(text: string, names?: ReadonlySet<string>): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) continue;
    const [, name, labelText, valueText] = match;
    if (names && !names.has(name!)) continue;
    const value = parseValue(valueText!);
    if (value === undefined) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (labelText ?? '').matchAll(LABEL)) labels[key!] = unescape(raw!);
    samples.push({ name: name!, labels, value });
  }
  return samples;
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  const value = Number(text);
  return Number.isNaN(value) && text !== 'NaN' ? undefined : value;
}

function unescape(raw: string): string {
  return raw.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

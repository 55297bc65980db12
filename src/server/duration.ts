// Go-style durations ("1.5s", "300ms", "1m30s", "10s"), as the API server
// writes ?timeout= and as Kubernetes users write flags.

const unitMs: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  let total = 0;
  part.lastIndex = 0;
  while (part.lastIndex < text.length) {
    const start = part.lastIndex;
    const match = part.exec(text);
    if (match === null || match.index !== start) return undefined;
    total += Number(match[1]) * (unitMs[match[2] ?? ''] ?? Number.NaN);
  }
  return text.length > 0 && Number.isFinite(total) ? total : undefined;
}

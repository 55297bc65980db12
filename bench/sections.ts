// BENCHMARKS.md is written by `npm run bench`, and sections of it by the
// scripts that measure on their own (probe, placement): each puts its section
// in place without touching the others.

/** BENCHMARKS.md with `section` (which starts with `heading`) where that heading is, others after it kept; else appended. */
export function withSection(text: string, heading: string, section: string): string {
  const at = text.indexOf(heading);
  const next = at < 0 ? -1 : text.indexOf('\n## ', at + heading.length);
  return at < 0
    ? `${text.trimEnd()}\n\n${section}`
    : `${text.slice(0, at)}${section}${next < 0 ? '' : `\n${text.slice(next + 1)}`}`;
}

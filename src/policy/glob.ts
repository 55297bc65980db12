// Shell-style globs over names: `*` any run of characters, `?` exactly one;
// everything else is literal.

export type NameMatcher = (name: string) => boolean;

export function globMatcher(patterns: readonly string[]): NameMatcher {
  if (patterns.length === 0) return () => false;
  const source = patterns
    .map((pattern) =>
      pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '.*')
        .replaceAll('?', '.'),
    )
    .join('|');
  const regex = new RegExp(`^(?:${source})$`, 's');
  return (name) => regex.test(name);
}

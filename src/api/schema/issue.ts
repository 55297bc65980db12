// What the loader reports about a document: a message about one field, located later at its YAML node.

export type Path = readonly (string | number)[];

export interface Issue {
  /** The field the message is about. */
  readonly path: Path;
  /** Where to point: at the field's key (unknown fields), its value, or the map that lacks it. */
  readonly at: 'key' | 'value' | 'parent';
  readonly message: string;
}

/** The YAML word for a value's type, as messages say it. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'map';
  return typeof value;
}

export function isPlainMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The topogate.dev API group at v1alpha1, and how each of its kinds is addressed: the one place the
// group, version, kind and plural strings are written (watches, writers, readers and the CRDs use these).

export const GROUP = 'topogate.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;

/** A kind of topogate.dev/v1alpha1 as the API server serves it: every kind is cluster-scoped. */
export interface Resource<Kind extends string = string> {
  readonly group: typeof GROUP;
  readonly version: typeof VERSION;
  readonly apiVersion: typeof API_VERSION;
  readonly kind: Kind;
  /** The path segment: /apis/topogate.dev/v1alpha1/<plural>. */
  readonly plural: string;
}

export const resource = <const Kind extends string>(kind: Kind, plural: string): Resource<Kind> => ({
  group: GROUP,
  version: VERSION,
  apiVersion: API_VERSION,
  kind,
  plural,
});

// Deeply read-only: what a schema's Static type becomes once parsed, for readers that never change it.

export type Frozen<T> = T extends (infer Item)[]
  ? readonly Frozen<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: Frozen<T[Key]> }
    : T;

// The ResourceSlice devices of a snapshot by product, built once per devices map
// (a snapshot shares its map with the last one until a ResourceSlice changes):
// a Node event then recompiles a gpu rule without a pass over every GPU node's
// devices, and a rule reads only the nodes of the products it names.

import type { Device } from '../../topology/model.ts';

type Devices = ReadonlyMap<string, readonly Device[]>;

export interface DeviceIndex {
  /** The products present, as GPU Feature Discovery labels write them, sorted. */
  readonly products: readonly string[];
  /** Product (label form) → the nodes that have devices of it. */
  readonly byProduct: ReadonlyMap<string, ReadonlySet<string>>;
}

const indexes = new WeakMap<Devices, DeviceIndex>();

export function deviceIndex(devices: Devices): DeviceIndex {
  let index = indexes.get(devices);
  if (index === undefined) indexes.set(devices, (index = build(devices)));
  return index;
}

function build(devices: Devices): DeviceIndex {
  const byProduct = new Map<string, Set<string>>();
  for (const [node, list] of devices)
    for (const device of list) {
      if (device.productName === undefined) continue;
      const product = labelForm(device.productName);
      let nodes = byProduct.get(product);
      if (nodes === undefined) byProduct.set(product, (nodes = new Set()));
      nodes.add(node);
    }
  return { products: [...byProduct.keys()].sort(), byProduct };
}

/** GPU Feature Discovery writes the product with dashes for spaces (NVIDIA-H100-80GB-HBM3); globs are written that way. */
export function labelForm(productName: string): string {
  return productName.trim().replace(/\s+/g, '-');
}

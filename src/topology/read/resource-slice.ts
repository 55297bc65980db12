// resource.k8s.io/v1 ResourceSlice → the devices a DRA driver publishes for
// one node: what a gpu rule matches (product name, memory) and what a dra rule
// aligns by (PCIe root, NUMA node). Slices for several nodes (nodeSelector,
// allNodes) name no node and are left out: they describe network-attached
// pools, not a node's own devices.

import { parseQuantity } from '../../kube/quantity.ts';
import type { Device } from '../model.ts';
import { isRecord } from '../../kube/json.ts';
import { list, record, string } from './fields.ts';

export interface ResourceSliceFacts {
  readonly node?: string;
  readonly devices: readonly Device[];
}

const PCIE_ROOT = 'resource.kubernetes.io/pcieRoot';
const MIB_MILLI = 1024 * 1024 * 1000;

export function readResourceSlice(object: Record<string, unknown>): ResourceSliceFacts {
  const spec = record(object.spec);
  const driver = string(spec.driver) ?? '';
  const node = string(spec.nodeName);
  const devices = list(spec.devices).flatMap((device) => readDevice(driver, device));
  return node ? { node, devices } : { devices };
}

function readDevice(driver: string, value: unknown): Device[] {
  if (!isRecord(value) || typeof value.name !== 'string') return [];
  // v1beta1 nests attributes and capacity under `basic`; v1 has them on the device.
  const fields = isRecord(value.basic) ? value.basic : value;
  const attributes = record(fields.attributes);
  const attribute = (name: string): unknown => {
    const found = attributes[name] ?? attributes[`${driver}/${name}`];
    if (found !== undefined) return found;
    const suffix = `/${name}`;
    for (const [key, item] of Object.entries(attributes)) if (key.endsWith(suffix)) return item;
    return undefined;
  };
  const productName = string(record(attribute('productName')).string);
  const pcieRoot = string(record(attributes[PCIE_ROOT]).string);
  const numa = record(attribute('numaNode')).int;
  const memory = parseQuantity(record(record(fields.capacity).memory).value);
  return [
    {
      driver,
      name: value.name,
      ...(productName ? { productName } : {}),
      ...(memory !== undefined ? { memoryMiB: Math.floor(memory / MIB_MILLI) } : {}),
      ...(pcieRoot ? { pcieRoot } : {}),
      ...(typeof numa === 'number' && Number.isInteger(numa) ? { numaNode: numa } : {}),
    },
  ];
}

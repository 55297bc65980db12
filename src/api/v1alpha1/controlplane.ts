// ControlPlane: the control plane, measured (docs/controlplane.md). One object, `default`, whose status
// one topogate replica writes. The one source of its types, its JSON Schema and its CRD.

import Type, { type Static, type TProperties } from 'typebox';
import type { KindDefinition } from '../crd.ts';
import type { Frozen } from '../schema/frozen.ts';
import { stringMap } from '../schema/map.ts';
import { resource } from './resource.ts';

export const CONTROL_PLANE = resource('ControlPlane', 'controlplanes');
/** The one ControlPlane object's name. */
export const CONTROL_PLANE_NAME = 'default';

const milliseconds = () => Type.Number({ minimum: 0 });
const count = () => Type.Integer({ minimum: 0 });
const name = () => Type.String({ maxLength: 253 });
const time = () => Type.String({ format: 'date-time' });

const leader = Type.Object({
  holder: name(),
  nodeName: Type.Optional(name()),
  zone: Type.Optional(name()),
});

const etcdMember = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 253 }),
  nodeName: Type.Optional(name()),
  zone: Type.Optional(name()),
  isLeader: Type.Optional(Type.Boolean()),
  walFsyncP99Ms: Type.Optional(milliseconds()),
  backendCommitP99Ms: Type.Optional(milliseconds()),
  peerRttMs: Type.Optional(stringMap(milliseconds(), { maxProperties: 14 })),
});

/** Every figure optional: one nothing measured is left out rather than written as zero. */
const figures = <Properties extends TProperties>(properties: Properties) => Type.Partial(Type.Object(properties));

export const controlPlaneStatus = figures({
  observedAt: time(),
  windowSeconds: Type.Integer({ description: 'The span p99s and counts are over.', minimum: 0 }),
  apiServer: figures({
    writeP99Ms: milliseconds(),
    webhook: figures({ failOpen5m: count(), requests5m: count(), admissionP99Ms: milliseconds() }),
  }),
  etcd: figures({ leader: name(), members: Type.Array(etcdMember, { maxItems: 15 }) }),
  scheduler: figures({ leader, attemptP99Ms: milliseconds(), bindP99Ms: milliseconds() }),
  controllerManager: figures({ leader }),
  watch: figures({ e2eP50Ms: milliseconds(), e2eP99Ms: milliseconds(), samples: count() }),
  findings: Type.Array(Type.String({ maxLength: 1024 }), {
    description: 'What an operator should fix, most serious first.',
    maxItems: 64,
  }),
  sources: stringMap(figures({ observedAt: time(), error: Type.String({ maxLength: 2048 }) }), {
    description: 'When each source last answered, and why it does not now.',
  }),
});

/** The status as the CRD stores it: every figure may be missing (nothing measured it). */
export type StoredControlPlaneStatus = Frozen<Static<typeof controlPlaneStatus>>;

export const controlPlaneDefinition: KindDefinition = {
  resource: CONTROL_PLANE,
  about: `The control plane, measured (docs/controlplane.md). One object, named
\`default\`, cluster-scoped. Everything is status, written by one topogate replica at a time (the
holder of the Lease \`topogate-controlplane\` in topogate's namespace) through the status
subresource, at most every 5 s. Figures in milliseconds; a figure nothing was measured for is
left out. \`topogate controlplane --output json\` prints the same status object.`,
  printerColumns: [
    { name: 'etcd-Leader', type: 'string', jsonPath: '.status.etcd.leader' },
    { name: 'Write-p99-ms', type: 'number', jsonPath: '.status.apiServer.writeP99Ms' },
    { name: 'Observed', type: 'date', jsonPath: '.status.observedAt' },
  ],
  root: {
    'x-kubernetes-validations': [
      {
        rule: `self.metadata.name == '${CONTROL_PLANE_NAME}'`,
        message: `the ControlPlane is named ${CONTROL_PLANE_NAME}`,
      },
    ],
  },
  spec: Type.Unsafe<Record<string, never>>({
    type: 'object',
    description: 'Nothing to set; the object exists for its status.',
  }),
  status: controlPlaneStatus,
};

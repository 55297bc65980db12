// ControlPlane: the control plane, measured (docs/controlplane.md). One object, `default`, whose status
// one topogate replica writes. The one source of its types, its JSON Schema and its CRD.

import Type, { type Static } from 'typebox';
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

export const controlPlaneStatus = Type.Object({
  observedAt: Type.Optional(time()),
  windowSeconds: Type.Optional(Type.Integer({ description: 'The span p99s and counts are over.', minimum: 0 })),
  apiServer: Type.Optional(
    Type.Object({
      writeP99Ms: Type.Optional(milliseconds()),
      webhook: Type.Optional(
        Type.Object({
          failOpen5m: Type.Optional(count()),
          requests5m: Type.Optional(count()),
          admissionP99Ms: Type.Optional(milliseconds()),
        }),
      ),
    }),
  ),
  etcd: Type.Optional(
    Type.Object({
      leader: Type.Optional(name()),
      members: Type.Optional(Type.Array(etcdMember, { maxItems: 15 })),
    }),
  ),
  scheduler: Type.Optional(
    Type.Object({
      leader: Type.Optional(leader),
      attemptP99Ms: Type.Optional(milliseconds()),
      bindP99Ms: Type.Optional(milliseconds()),
    }),
  ),
  controllerManager: Type.Optional(Type.Object({ leader: Type.Optional(leader) })),
  watch: Type.Optional(
    Type.Object({
      e2eP50Ms: Type.Optional(milliseconds()),
      e2eP99Ms: Type.Optional(milliseconds()),
      samples: Type.Optional(count()),
    }),
  ),
  findings: Type.Optional(
    Type.Array(Type.String({ maxLength: 1024 }), {
      description: 'What an operator should fix, most serious first.',
      maxItems: 64,
    }),
  ),
  sources: Type.Optional(
    stringMap(
      Type.Object({
        observedAt: Type.Optional(time()),
        error: Type.Optional(Type.String({ maxLength: 2048 })),
      }),
      { description: 'When each source last answered, and why it does not now.' },
    ),
  ),
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

// `topogate manifests`: prints the objects of manifests/ (the same set, in the
// same order, as `kubectl apply -k manifests/`) as one multi-document YAML
// stream, made ready for a particular install: the CA bundle filled in, the
// webhook pointed at a URL, or everything moved to another namespace.

import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { documentValue, parseKubectlYaml, stringifyForKubectl } from '../kube/yaml.ts';
import type { KubeObject } from '../kube/types.ts';
import { checkDnsLabel } from '../api/schema/names.ts';
import type { Command, CommandIO } from './command.ts';
import { EXIT } from './command.ts';

/** The folder read at run time, relative to the package root. */
export const manifestsDir = new URL('../../manifests/', import.meta.url);

/** The namespace the files in manifests/ are written for. */
export const defaultNamespace = 'topogate-system';

const webhookKinds = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

export interface Customization {
  /** PEM of the CA that signed the serving certificate. */
  readonly caPem?: string;
  /** https URL the API server calls instead of the in-cluster Service. */
  readonly url?: string;
  readonly namespace?: string;
}

/** The second plane's objects (`--gate-plane`): opt-in, so a kustomization of their own. */
export const gatePlaneDir = new URL('gate-plane/', manifestsDir);

const usage = `Usage: topogate manifests [--ca FILE] [--url URL] [--namespace NS] [--gate-plane]

Prints the deployable manifests (Namespace, CRDs, RBAC, ConfigMap, Service,
Deployment, PodDisruptionBudget, MutatingWebhookConfiguration) as multi-document
YAML, the same set as \`kubectl apply -k manifests/\`.

Flags:
  --ca FILE         fill in the webhook's clientConfig.caBundle from this PEM CA
                    certificate (the ca.crt written by \`topogate certs\`)
  --url URL         call the webhook at this https URL instead of the in-cluster
                    Service (out-of-cluster runs, the e2e control plane)
  --namespace NS    install into NS instead of ${defaultNamespace}
  --gate-plane      add the second plane (docs/gates.md): the placement
                    controller's RBAC and a MutatingAdmissionPolicy that gates
                    new Pods of namespaces labelled topogate.dev/placement=gated

Example:
  topogate certs --service topogate --namespace ${defaultNamespace} --out certs
  topogate manifests --ca certs/ca.crt | kubectl apply --server-side -f -
  kubectl -n ${defaultNamespace} create secret generic topogate-tls \\
    --from-file=certs/ca.crt --from-file=certs/tls.crt --from-file=certs/tls.key
`;

export const manifests: Command = {
  summary: 'prints the deployable manifests (CRDs, RBAC, Deployment, webhook), CA bundle filled in',
  usage,
  async run(args, io) {
    const parsed = parseFlags(args);
    if ('problem' in parsed) return fail(io, parsed.problem, EXIT.usage);
    const { ca, url, namespace } = parsed.flags;
    try {
      const caPem = ca === undefined ? undefined : await readCa(resolvePath(io, ca));
      const base = await readManifests(manifestsDir);
      const gatePlane = parsed.flags['gate-plane'] ? await readManifests(gatePlaneDir) : [];
      const objects = customize([...base, ...gatePlane], { caPem, url, namespace });
      io.stdout.write(toYamlStream(objects));
      return EXIT.ok;
    } catch (error) {
      return fail(io, (error as Error).message, EXIT.failed);
    }
  },
};

const flagOptions = {
  ca: { type: 'string' },
  url: { type: 'string' },
  namespace: { type: 'string' },
  'gate-plane': { type: 'boolean' },
} as const;

function parseFlags(
  args: readonly string[],
): { flags: { ca?: string; url?: string; namespace?: string; 'gate-plane'?: boolean } } | { problem: string } {
  let flags;
  try {
    flags = parseArgs({ args: [...args], options: flagOptions, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return { problem: `${(error as Error).message}\n\n${usage}` };
  }
  const problem =
    (flags.url === undefined ? undefined : checkWebhookUrl(flags.url)) ??
    (flags.namespace === undefined ? undefined : checkNamespace(flags.namespace));
  return problem === undefined ? { flags } : { problem };
}

function fail(io: CommandIO, message: string, code: number): number {
  io.stderr.write(`topogate manifests: ${message.endsWith('\n') ? message : `${message}\n`}`);
  return code;
}

function resolvePath(io: CommandIO, file: string): string {
  return isAbsolute(file) ? file : resolve(io.cwd, file);
}

/** Reads the resources kustomization.yaml lists, in its order. */
export async function readManifests(dir: URL): Promise<KubeObject[]> {
  const kustomization = parseYaml(await readText(new URL('kustomization.yaml', dir)), 'kustomization.yaml')[0];
  const resources = (kustomization as { resources?: unknown } | undefined)?.resources;
  if (!Array.isArray(resources) || !resources.every((entry) => typeof entry === 'string')) {
    throw new Error(`${new URL('kustomization.yaml', dir).pathname}: resources must be a list of file names`);
  }
  const objects: KubeObject[] = [];
  for (const file of resources as string[]) {
    objects.push(...(parseYaml(await readText(new URL(file, dir)), file) as KubeObject[]));
  }
  return objects;
}

async function readText(url: URL): Promise<string> {
  try {
    return await readFile(url, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${url.pathname}: ${(error as Error).message}`, { cause: error });
  }
}

function parseYaml(text: string, file: string): unknown[] {
  const documents = parseKubectlYaml(text);
  const values: unknown[] = [];
  for (const document of documents) {
    const error = document.errors[0];
    if (error) throw new Error(`${file}: ${error.message}`);
    const value = documentValue(document, -1);
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}

async function readCa(file: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the CA file: ${(error as Error).message}`, { cause: error });
  }
  try {
    new X509Certificate(pem);
  } catch (error) {
    throw new Error(`${file} is not a PEM certificate: ${(error as Error).message}`, { cause: error });
  }
  return pem;
}

/** What the API server accepts as a webhook URL, or why not. */
function checkWebhookUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `--url ${JSON.stringify(text)} is not a URL`;
  }
  if (url.protocol !== 'https:')
    return `--url must use https (the API server calls webhooks over TLS only), got ${url.protocol}`;
  if (url.username !== '' || url.password !== '') return '--url must not carry user information';
  if (url.search !== '' || url.hash !== '') return '--url must not have a query or fragment';
  return undefined;
}

function checkNamespace(name: string): string | undefined {
  const problem = checkDnsLabel(name);
  return problem === undefined ? undefined : `--namespace: ${problem}`;
}

/** The objects as an install needs them; the input is left as it was. */
export function customize(objects: readonly KubeObject[], options: Customization): KubeObject[] {
  return objects.map((object) => {
    const moved =
      options.namespace === undefined
        ? structuredClone(object)
        : (renamed(object, defaultNamespace, options.namespace) as KubeObject);
    if (webhookKinds.has(moved.kind ?? '')) pointWebhooks(moved, options);
    return moved;
  });
}

// The default namespace appears only where it names the namespace (metadata,
// subjects, the webhook's service and namespaceSelector), so replacing every
// string equal to it moves the whole install and nothing else.
function renamed(value: unknown, from: string, to: string): unknown {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((item) => renamed(item, from, to));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renamed(item, from, to)]));
  }
  return value;
}

function pointWebhooks(configuration: KubeObject, { caPem, url }: Customization): void {
  const webhooks = Array.isArray(configuration.webhooks)
    ? (configuration.webhooks as { clientConfig?: Record<string, unknown> }[])
    : [];
  for (const webhook of webhooks) {
    const clientConfig = { ...webhook.clientConfig };
    if (url !== undefined) {
      delete clientConfig.service;
      clientConfig.url = url;
    }
    if (caPem !== undefined) clientConfig.caBundle = Buffer.from(caPem).toString('base64');
    webhook.clientConfig = clientConfig;
  }
}

function toYamlStream(objects: readonly KubeObject[]): string {
  return objects
    .map((object) => `---\n${stringifyForKubectl(object, { aliasDuplicateObjects: false, lineWidth: 0 })}`)
    .join('');
}

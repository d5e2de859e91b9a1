#!/usr/bin/env node
// Renders a kustomization and validates every object it produces against the Kubernetes API
// schemas, then checks that the objects fit together. Part of `pnpm lint`, so CI fails on a broken
// manifest (e2e/src/k8s-manifests.test.ts proves that it does).
//   node infra/scripts/validate-k8s.mjs [DIR]           (default: infra/k8s)
//   node infra/scripts/validate-k8s.mjs --render [DIR]  prints the rendered YAML, like `kubectl kustomize`
//
// Rendering: the subset of kustomize this repository uses — `resources` (YAML files, or folders
// with their own kustomization.yaml), `namespace` and `images` (name → newName/newTag/digest). Any
// other kustomization field is reported as unsupported rather than silently ignored; extend
// `renderKustomization` when the manifests need one.
//
// Schemas: the npm package `kubernetes-models` (ajv validators generated from the Kubernetes
// OpenAPI document, API 1.31+). Its validators check types, formats and required fields but, like
// the OpenAPI document, allow unknown fields; an API server with strict field validation (kubectl's
// default) rejects them, so they are found here too: each validator runs on a proxy that records
// which fields it read, and a field it never read is one the schema does not know.
//
// Consistency (what no schema sees): unique names, selectors that match pod labels, Services whose
// target ports exist (a headless Service's port must be the container port itself: clients
// connect to the pods directly), HPAs whose targets exist and set the requests they scale on,
// PodDisruptionBudgets for every workload that runs more than one replica, StatefulSets' governing
// headless Services, ConfigMap/Secret references and their keys, volume mounts.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';

const require = createRequire(import.meta.url);
// The generated validators sit in the package's `_schemas/` folder, which its `exports` map does not
// list: load them by path from the package's own folder.
const SCHEMAS_DIR = path.join(path.dirname(require.resolve('kubernetes-models')), '_schemas');

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const SUPPORTED_FIELDS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images']);
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'PriorityClass',
  'StorageClass',
  'IngressClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
]);
const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `Kind/name` (with the file it came from), how problems name an object. */
function idOf(object) {
  const name = object?.metadata?.name ?? '<unnamed>';
  return `${object?.kind ?? '<no kind>'}/${name} (${object?.__source ?? '?'})`;
}

function hide(object, source) {
  Object.defineProperty(object, '__source', { value: source, enumerable: false });
  return object;
}

// ---- rendering -----------------------------------------------------------------------------

function readYamlDocuments(file) {
  const documents = parseAllDocuments(readFileSync(file, 'utf8'), { prettyErrors: true });
  const objects = [];
  for (const document of documents) {
    if (document.errors.length > 0) {
      throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
    }
    const value = document.toJS();
    if (value == null) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`${file}: a document is not a mapping`);
    }
    objects.push(value);
  }
  return objects;
}

function kustomizationFileIn(dir) {
  const name = KUSTOMIZATION_FILES.find((candidate) => existsSync(path.join(dir, candidate)));
  if (!name) throw new Error(`${dir}: no kustomization.yaml`);
  return path.join(dir, name);
}

/** Splits `registry:5000/a/b:tag@sha256:…` into its name and the rest. */
function imageName(image) {
  const withoutDigest = image.split('@')[0];
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  return colon < 0 ? withoutDigest : withoutDigest.slice(0, colon);
}

function applyImages({ objects, images, used }) {
  const rewrite = (container) => {
    if (typeof container?.image !== 'string') return;
    const name = imageName(container.image);
    const entry = images.find((candidate) => candidate.name === name);
    if (!entry) return;
    used.add(entry.name);
    let tagOrDigest = container.image.slice(name.length);
    if (entry.newTag !== undefined) tagOrDigest = `:${entry.newTag}`;
    if (entry.digest !== undefined) tagOrDigest = `@${entry.digest}`;
    container.image = `${entry.newName ?? name}${tagOrDigest}`;
  };
  const walk = (value) => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(walk);
    for (const [key, child] of Object.entries(value)) {
      if (['containers', 'initContainers', 'ephemeralContainers'].includes(key)) {
        if (Array.isArray(child)) child.forEach(rewrite);
      } else {
        walk(child);
      }
    }
  };
  objects.forEach(walk);
}

/**
 * Renders the kustomization in `dir` the way `kubectl kustomize` does for the fields this
 * repository uses. Returns the objects (each with a hidden `__source`) and the problems found
 * while rendering (unsupported fields, unused image entries).
 */
export function renderKustomization(dir) {
  const file = kustomizationFileIn(dir);
  const [kustomization] = readYamlDocuments(file);
  const problems = [];
  const relative = (target) => path.relative(process.cwd(), target) || '.';
  for (const field of Object.keys(kustomization ?? {})) {
    if (!SUPPORTED_FIELDS.has(field)) {
      problems.push(`${relative(file)}: field "${field}" is not supported by validate-k8s.mjs`);
    }
  }
  const objects = [];
  for (const resource of kustomization?.resources ?? []) {
    if (/^[a-z]+:\/\//.test(resource) || resource.includes('?ref=')) {
      problems.push(`${relative(file)}: remote resource "${resource}" cannot be rendered offline`);
      continue;
    }
    const target = path.resolve(dir, resource);
    if (!existsSync(target)) {
      problems.push(`${relative(file)}: resource "${resource}" does not exist`);
      continue;
    }
    if (statSync(target).isDirectory()) {
      const nested = renderKustomization(target);
      problems.push(...nested.problems);
      objects.push(...nested.objects);
    } else {
      for (const object of readYamlDocuments(target)) objects.push(hide(object, relative(target)));
    }
  }
  const namespace = kustomization?.namespace;
  if (namespace) {
    for (const object of objects) {
      if (object.kind === 'Namespace') {
        if (object.metadata?.name !== namespace) {
          problems.push(`${idOf(object)}: is not the kustomization's namespace "${namespace}"`);
        }
      } else if (!CLUSTER_SCOPED.has(object.kind)) {
        object.metadata = { ...object.metadata, namespace };
      }
    }
  }
  const images = kustomization?.images ?? [];
  const used = new Set();
  applyImages({ objects, images, used });
  for (const entry of images) {
    if (!used.has(entry.name)) {
      problems.push(`${relative(file)}: images entry "${entry.name}" matches no container image`);
    }
  }
  return { objects, problems };
}

// ---- schemas -------------------------------------------------------------------------------

/** `apps/v1` + `Deployment` → the kubernetes-models validator, or undefined. */
function schemaValidatorFor({ apiVersion, kind }) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  const groupName = group === '' ? 'Core' : capital(group.split('.')[0]);
  const file = path.join(SCHEMAS_DIR, `IoK8sApi${groupName}${capital(version)}${kind}.js`);
  if (!/^[A-Za-z0-9]+$/.test(`${groupName}${version}${kind}`) || !existsSync(file))
    return undefined;
  try {
    return require(file).validate;
  } catch {
    return undefined;
  }
}

/** Wraps `value` so that every field a validator reads is recorded under its JSON pointer. */
function recordReads(value, pointer, reads) {
  if (value === null || typeof value !== 'object') return value;
  const fields = new Set();
  reads.set(pointer, { fields, value });
  return new Proxy(value, {
    get(target, key) {
      if (typeof key !== 'string') return target[key];
      fields.add(key);
      return recordReads(target[key], `${pointer}/${key}`, reads);
    },
    has(target, key) {
      if (typeof key === 'string') fields.add(key);
      return key in target;
    },
    // A map (labels, data, resources.requests) is iterated: all of its keys are known.
    ownKeys(target) {
      for (const key of Object.keys(target)) fields.add(key);
      return Reflect.ownKeys(target);
    },
  });
}

function describeSchemaError(error) {
  const where = error.instancePath || '/';
  switch (error.keyword) {
    case 'required':
      return `${where}: required field "${error.params.missingProperty}" is missing`;
    case 'type':
      return `${where}: must be of type ${error.params.type}`;
    case 'enum':
      return `${where}: must be one of ${error.params.allowedValues.join(', ')}`;
    case 'format':
      return `${where}: must be of format ${error.params.format}`;
    default:
      return `${where}: ${error.keyword} ${JSON.stringify(error.params)}`;
  }
}

/** Schema problems of one object: unknown kind, schema errors, unknown fields, a bad name. */
export function schemaProblems(object) {
  const validate = schemaValidatorFor(object);
  if (!validate) {
    return [`${idOf(object)}: no Kubernetes API schema for ${object.apiVersion} ${object.kind}`];
  }
  const problems = [];
  const reads = new Map();
  if (!validate(recordReads(object, '', reads))) {
    // Unknown fields under a value that already failed are noise: report the failure only.
    for (const error of validate.errors ?? []) {
      problems.push(`${idOf(object)}: ${describeSchemaError(error)}`);
    }
  } else {
    for (const [pointer, { fields, value }] of reads) {
      if (Array.isArray(value)) continue;
      for (const key of Object.keys(value)) {
        if (!fields.has(key)) problems.push(`${idOf(object)}: ${pointer}/${key}: unknown field`);
      }
    }
  }
  const name = object.metadata?.name;
  if (typeof name !== 'string' || !DNS_SUBDOMAIN.test(name) || name.length > 253) {
    problems.push(`${idOf(object)}: metadata.name must be a DNS-1123 subdomain`);
  }
  return problems;
}

// ---- consistency ---------------------------------------------------------------------------

function selects(selector, labels) {
  const wanted = Object.entries(selector ?? {});
  return wanted.length > 0 && wanted.every(([key, value]) => labels?.[key] === value);
}

function podSpecOf(object) {
  return object.spec?.template?.spec;
}

function containersOf(object) {
  const spec = podSpecOf(object);
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
}

function workloadReplicas(workload, hpas) {
  const hpa = hpas.find(
    (candidate) =>
      candidate.spec?.scaleTargetRef?.kind === workload.kind &&
      candidate.spec?.scaleTargetRef?.name === workload.metadata.name,
  );
  return Math.max(workload.spec?.replicas ?? 1, hpa?.spec?.minReplicas ?? 1);
}

function checkWorkloads({ workloads, problems }) {
  for (const workload of workloads) {
    const labels = workload.spec?.template?.metadata?.labels;
    if (!selects(workload.spec?.selector?.matchLabels, labels)) {
      problems.push(`${idOf(workload)}: spec.selector.matchLabels does not match the pod labels`);
    }
    const volumes = new Set([
      ...(podSpecOf(workload)?.volumes ?? []).map((volume) => volume.name),
      ...(workload.spec?.volumeClaimTemplates ?? []).map((claim) => claim.metadata?.name),
    ]);
    for (const container of containersOf(workload)) {
      for (const mount of container.volumeMounts ?? []) {
        if (!volumes.has(mount.name)) {
          problems.push(
            `${idOf(workload)}: container ${container.name} mounts unknown volume "${mount.name}"`,
          );
        }
      }
    }
  }
}

function checkServices({ services, workloads, problems }) {
  for (const service of services) {
    const selector = service.spec?.selector;
    if (!selector) continue;
    const backends = workloads.filter((workload) =>
      selects(selector, workload.spec?.template?.metadata?.labels),
    );
    if (backends.length === 0) {
      problems.push(`${idOf(service)}: its selector matches no workload's pods`);
      continue;
    }
    const headless = service.spec?.clusterIP === 'None';
    for (const port of service.spec?.ports ?? []) {
      const target = port.targetPort ?? port.port;
      for (const backend of backends) {
        const containerPorts = containersOf(backend).flatMap((container) => container.ports ?? []);
        const match = containerPorts.find((candidate) =>
          typeof target === 'string'
            ? candidate.name === target
            : candidate.containerPort === target,
        );
        if (!match) {
          problems.push(
            `${idOf(service)}: targetPort ${target} is no container port of ${idOf(backend)}`,
          );
        } else if (headless && match.containerPort !== port.port) {
          problems.push(
            `${idOf(service)}: headless, so port ${port.port} must be the container port itself (${match.containerPort}): clients connect to the pods directly`,
          );
        }
      }
    }
  }
}

function checkStatefulSets({ workloads, services, problems }) {
  for (const set of workloads.filter((workload) => workload.kind === 'StatefulSet')) {
    const governing = services.find((service) => service.metadata.name === set.spec?.serviceName);
    if (!governing || governing.spec?.clusterIP !== 'None') {
      problems.push(`${idOf(set)}: spec.serviceName must name a headless Service`);
    }
  }
}

function checkAutoscalers({ hpas, workloads, problems }) {
  for (const hpa of hpas) {
    const ref = hpa.spec?.scaleTargetRef ?? {};
    const target = workloads.find(
      (workload) => workload.kind === ref.kind && workload.metadata.name === ref.name,
    );
    if (!target) {
      problems.push(`${idOf(hpa)}: scaleTargetRef ${ref.kind}/${ref.name} does not exist`);
      continue;
    }
    if ((hpa.spec?.minReplicas ?? 1) > hpa.spec?.maxReplicas) {
      problems.push(`${idOf(hpa)}: minReplicas is above maxReplicas`);
    }
    for (const metric of hpa.spec?.metrics ?? []) {
      const resource = metric.type === 'Resource' ? metric.resource : undefined;
      if (resource?.target?.type !== 'Utilization') continue;
      for (const container of podSpecOf(target)?.containers ?? []) {
        if (container.resources?.requests?.[resource.name] === undefined) {
          problems.push(
            `${idOf(hpa)}: scales on ${resource.name} utilization, but container ${container.name} of ${idOf(target)} requests no ${resource.name}`,
          );
        }
      }
    }
  }
}

function checkDisruptionBudgets({ pdbs, hpas, workloads, problems }) {
  for (const pdb of pdbs) {
    const covered = workloads.filter((workload) =>
      selects(pdb.spec?.selector?.matchLabels, workload.spec?.template?.metadata?.labels),
    );
    if (covered.length === 0)
      problems.push(`${idOf(pdb)}: its selector matches no workload's pods`);
    for (const workload of covered) {
      const minAvailable = pdb.spec?.minAvailable;
      if (typeof minAvailable === 'number' && minAvailable >= workloadReplicas(workload, hpas)) {
        problems.push(
          `${idOf(pdb)}: minAvailable ${minAvailable} leaves no pod of ${idOf(workload)} evictable`,
        );
      }
    }
  }
  for (const workload of workloads) {
    if (workloadReplicas(workload, hpas) < 2) continue;
    const labels = workload.spec?.template?.metadata?.labels;
    if (!pdbs.some((pdb) => selects(pdb.spec?.selector?.matchLabels, labels))) {
      problems.push(
        `${idOf(workload)}: runs more than one replica but no PodDisruptionBudget covers it`,
      );
    }
  }
}

function checkReferences({ objects, workloads, problems }) {
  const find = (kind, name) =>
    objects.find((object) => object.kind === kind && object.metadata?.name === name);
  const keysOf = (object) =>
    new Set([...Object.keys(object?.data ?? {}), ...Object.keys(object?.stringData ?? {})]);
  const check = ({ workload, kind, reference, key }) => {
    if (!reference || reference.optional === true) return;
    const target = find(kind, reference.name);
    if (!target) {
      problems.push(
        `${idOf(workload)}: refers to ${kind} "${reference.name}", which is not rendered`,
      );
    } else if (key !== undefined && !keysOf(target).has(key)) {
      problems.push(`${idOf(workload)}: ${kind} "${reference.name}" has no key "${key}"`);
    }
  };
  for (const workload of workloads) {
    for (const container of containersOf(workload)) {
      for (const source of container.envFrom ?? []) {
        check({ workload, kind: 'ConfigMap', reference: source.configMapRef });
        check({ workload, kind: 'Secret', reference: source.secretRef });
      }
      for (const variable of container.env ?? []) {
        const { configMapKeyRef, secretKeyRef } = variable.valueFrom ?? {};
        check({
          workload,
          kind: 'ConfigMap',
          reference: configMapKeyRef,
          key: configMapKeyRef?.key,
        });
        check({ workload, kind: 'Secret', reference: secretKeyRef, key: secretKeyRef?.key });
      }
    }
  }
}

/** Problems between objects: what each object's schema cannot see. */
export function consistencyProblems(objects) {
  const problems = [];
  const seen = new Set();
  for (const object of objects) {
    const key = `${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name}`;
    if (seen.has(key)) problems.push(`${idOf(object)}: defined twice`);
    seen.add(key);
  }
  const ofKind = (kind) => objects.filter((object) => object.kind === kind);
  const workloads = objects.filter((object) => WORKLOAD_KINDS.has(object.kind));
  const services = ofKind('Service');
  const hpas = ofKind('HorizontalPodAutoscaler');
  const pdbs = ofKind('PodDisruptionBudget');
  checkWorkloads({ workloads, problems });
  checkServices({ services, workloads, problems });
  checkStatefulSets({ workloads, services, problems });
  checkAutoscalers({ hpas, workloads, problems });
  checkDisruptionBudgets({ pdbs, hpas, workloads, problems });
  checkReferences({ objects, workloads, problems });
  return problems;
}

/** Renders `dir` and returns the objects and every problem found. */
export function validateKustomization(dir) {
  const { objects, problems } = renderKustomization(dir);
  for (const object of objects) problems.push(...schemaProblems(object));
  problems.push(...consistencyProblems(objects));
  return { objects, problems };
}

function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const args = process.argv.slice(2);
  const render = args.includes('--render');
  const given = args.find((arg) => !arg.startsWith('--'));
  const dir = path.resolve(given ?? path.join(root, 'infra/k8s'));
  let result;
  try {
    result = validateKustomization(dir);
  } catch (error) {
    console.error(`validate-k8s: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const { objects, problems } = result;
  if (problems.length > 0) {
    console.error(`${path.relative(process.cwd(), dir) || '.'}: ${problems.length} problem(s):`);
    for (const problem of problems) console.error(`  ${problem}`);
    process.exit(1);
  }
  if (render) {
    process.stdout.write(objects.map((object) => stringify(object)).join('---\n'));
    return;
  }
  const kinds = new Map();
  for (const object of objects) kinds.set(object.kind, (kinds.get(object.kind) ?? 0) + 1);
  const summary = [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ');
  console.log(`Kubernetes manifests valid: ${objects.length} objects (${summary}).`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

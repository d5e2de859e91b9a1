import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'infra/scripts/validate-k8s.mjs');
const MANIFESTS = path.join(ROOT, 'infra/k8s');

interface Run {
  status: number | null;
  output: string;
}

function validate(dir: string): Run {
  const result = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const copies: string[] = [];

/** A copy of infra/k8s with `file` edited by `edit`. */
function brokenCopy({ file, edit }: { file: string; edit: (text: string) => string }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleet-k8s-'));
  copies.push(dir);
  cpSync(MANIFESTS, dir, { recursive: true });
  const target = path.join(dir, file);
  const before = readFileSync(target, 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(target, after);
  return dir;
}

afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('infra/scripts/validate-k8s.mjs', () => {
  it('renders infra/k8s and finds every object valid', () => {
    const output = execFileSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: 'utf8' });
    expect(output).toMatch(/^Kubernetes manifests valid: \d+ objects/);
    for (const kind of ['StatefulSet', 'PodDisruptionBudget', 'HorizontalPodAutoscaler']) {
      expect(output).toContain(kind);
    }
  });

  it.each([
    {
      concern: 'a field of the wrong type',
      file: 'rag-agent.yaml',
      edit: (text: string) => text.replace('  replicas: 2', "  replicas: 'two'"),
      expected: /Deployment\/rag-agent .*\/spec\/replicas: must be of type integer/,
    },
    {
      concern: 'a misspelt field the API server would reject',
      file: 'gateway.yaml',
      edit: (text: string) => text.replace('readinessProbe:', 'readynessProbe:'),
      expected: /Deployment\/gateway .*\/containers\/0\/readynessProbe: unknown field/,
    },
    {
      concern: 'a missing required field',
      file: 'redis.yaml',
      edit: (text: string) => text.replace('      containerPort: 6379', '      hostIP: 0.0.0.0'),
      expected: /StatefulSet\/redis .*required field "containerPort" is missing/,
    },
    {
      concern: 'an API version that does not exist',
      file: 'web-agent.yaml',
      edit: (text: string) => text.replace('apiVersion: policy/v1', 'apiVersion: policy/v2'),
      expected: /no Kubernetes API schema for policy\/v2 PodDisruptionBudget/,
    },
    {
      concern: 'a Service whose target port no container has',
      file: 'planner.yaml',
      edit: (text: string) => text.replace('targetPort: http', 'targetPort: web'),
      expected: /Service\/planner .*targetPort web is no container port/,
    },
    {
      concern: 'a headless Service whose port is not the container port',
      file: 'mail-agent.yaml',
      edit: (text: string) => text.replace('      port: 8085', '      port: 80'),
      expected: /Service\/mail-agent .*headless, so port 80 must be the container port itself/,
    },
    {
      concern: 'a workload with replicas and no PodDisruptionBudget',
      file: 'code-agent.yaml',
      edit: (text: string) =>
        text.replace(/---\n# Voluntary disruptions[\s\S]*?(?=---\napiVersion: autoscaling)/, ''),
      expected: /Deployment\/code-agent .*no PodDisruptionBudget covers it/,
    },
    {
      concern: 'a Secret key that does not exist',
      file: 'orchestrator.yaml',
      edit: (text: string) => text.replace('key: FLEET_INTERNAL_TOKEN }', 'key: FLEET_TOKEN }'),
      expected: /Secret "fleet-secrets" has no key "FLEET_TOKEN"/,
    },
    {
      concern: 'an HPA scaling on a resource the pods do not request',
      file: 'reasoning-agent.yaml',
      edit: (text: string) =>
        text.replace('requests: { cpu: 250m, memory: 256Mi }', 'requests: {}'),
      expected: /HorizontalPodAutoscaler\/reasoning-agent .*requests no cpu/,
    },
    {
      concern: 'a kustomize feature the renderer does not implement',
      file: 'kustomization.yaml',
      edit: (text: string) => `${text}patches:\n  - path: extra.yaml\n`,
      expected: /field "patches" is not supported/,
    },
  ])('fails on $concern', ({ file, edit, expected }) => {
    const run = validate(brokenCopy({ file, edit }));
    expect(run.status).toBe(1);
    expect(run.output).toMatch(expected);
  });

  it('renders the namespace and the images entries of the kustomization into the objects', () => {
    const dir = brokenCopy({
      file: 'kustomization.yaml',
      edit: (text: string) =>
        text.replace(
          '  - name: redis\n    newTag: 7-alpine',
          '  - name: redis\n    newName: registry.example.com/mirror/redis\n    newTag: 7.4',
        ),
    });
    const rendered = execFileSync(process.execPath, [SCRIPT, '--render', dir], {
      encoding: 'utf8',
    });
    expect(rendered).toContain('image: registry.example.com/mirror/redis:7.4');
    expect(rendered).toContain('image: a2a-fleet/rag-agent:dev');
    expect(rendered.match(/^ {2}namespace: a2a-fleet$/gm)?.length).toBe(
      rendered.split('\n---\n').length - 1,
    );
  });
});

describe('infra/k8s/redis-sentinel (optional Redis with Sentinel)', () => {
  const SENTINEL = path.join(MANIFESTS, 'redis-sentinel');

  it('is not part of the default kustomization', () => {
    const rendered = execFileSync(process.execPath, [SCRIPT, '--render'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(rendered).not.toMatch(/name: redis-sentinel/);
    expect(rendered).not.toMatch(/^kind: ConfigMap\nmetadata:\n {2}name: fleet-redis$/m);
  });

  it('renders on its own and finds every object valid', () => {
    const run = validate(SENTINEL);
    expect(run.output).toMatch(/^Kubernetes manifests valid: 9 objects/);
    expect(run.status).toBe(0);
  });

  it('fits together with infra/k8s: no name twice, every reference found', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fleet-k8s-sentinel-'));
    copies.push(dir);
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      `resources:\n  - ${MANIFESTS}\n  - ${SENTINEL}\n`,
    );
    const run = validate(dir);
    expect(run.output).toMatch(/^Kubernetes manifests valid: 54 objects/);
    expect(run.status).toBe(0);
  });

  it('reaches every fleet Deployment through the optional fleet-redis ConfigMap', () => {
    const rendered = execFileSync(process.execPath, [SCRIPT, '--render'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const deployments = rendered.match(/^kind: Deployment$/gm) ?? [];
    const readers =
      rendered.match(/- configMapRef:\n\s+name: fleet-redis\n\s+optional: true\n/g) ?? [];
    expect(deployments.length).toBeGreaterThan(0);
    expect(readers).toHaveLength(deployments.length);
    const config = execFileSync(process.execPath, [SCRIPT, '--render', SENTINEL], {
      encoding: 'utf8',
    });
    expect(config).toMatch(/REDIS_SENTINELS: redis-sentinel:26379/);
    expect(config).toMatch(/REDIS_SENTINEL_NAME: mymaster/);
  });

  it('fails when a Sentinel pod refers to a key fleet-redis does not have', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fleet-k8s-sentinel-'));
    copies.push(dir);
    cpSync(SENTINEL, dir, { recursive: true });
    const file = path.join(dir, 'fleet-redis.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('REDIS_SENTINEL_NAME: mymaster', 'SENTINEL_NAME: x'),
    );
    const run = validate(dir);
    expect(run.status).toBe(1);
    expect(run.output).toMatch(/ConfigMap "fleet-redis" has no key "REDIS_SENTINEL_NAME"/);
  });
});

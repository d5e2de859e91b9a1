import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { CONSOLE_CSP } from './console-csp';

const INDEX =
  '<!doctype html><title>console</title><script type="module" src="/console/assets/app-1.js"></script>';

describe('the console at /console', () => {
  let bundleDir: string;
  let gateway: TestGateway | undefined;

  beforeAll(async () => {
    bundleDir = await mkdtemp(path.join(os.tmpdir(), 'console-bundle-'));
    await mkdir(path.join(bundleDir, 'assets'));
    await writeFile(path.join(bundleDir, 'index.html'), INDEX);
    await writeFile(path.join(bundleDir, 'assets', 'app-1.js'), 'console.log("app");');
  });
  afterAll(async () => {
    await rm(bundleDir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  const withConsole = async (dir: string | undefined = bundleDir): Promise<TestGateway> => {
    gateway = await buildGateway({ upstream: 'offline', overrides: { consoleDir: dir } });
    return gateway;
  };

  it('serves the page for every console path, with a CSP that allows no inline script', async () => {
    const { app } = await withConsole();
    for (const route of ['/console', '/console/', '/console/sessions/abc', '/console/memory']) {
      const response = await request(app).get(route);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.text).toBe(INDEX);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });

  it('serves assets for a year (content-hashed names) and a missing one as a 404 error', async () => {
    const { app } = await withConsole();
    const asset = await request(app).get('/console/assets/app-1.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);

    const missing = await request(app).get('/console/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found_error' });
    const escape = await request(app).get('/console/assets/..%2f..%2findex.html');
    expect(escape.status).toBe(404);
  });

  it('needs no key, and the page holds none', async () => {
    const { app } = await withConsole();
    const response = await request(app).get('/console/sessions');
    expect(response.status).toBe(200);
    expect(response.text).not.toContain(TEST_KEY);
  });

  it('redirects / to the console', async () => {
    const { app } = await withConsole();
    const response = await request(app).get('/');
    expect(response.status).toBe(302);
    expect(response.headers['location']).toBe('/console/');
  });

  it('answers 503 saying how to build it when it was never built', async () => {
    const { app } = await withConsole(path.join(bundleDir, 'missing'));
    const response = await request(app).get('/console/');
    expect(response.status).toBe(503);
    expect(response.body.error.message).toContain('pnpm build');
  });

  it('is not served when switched off (GATEWAY_CONSOLE=false)', async () => {
    gateway = await buildGateway({ upstream: 'offline' });
    expect((await request(gateway.app).get('/console/')).status).toBe(404);
    expect((await request(gateway.app).get('/')).status).toBe(404);
  });

  it("answers the API with Cache-Control: no-store, so no browser keeps a key's data", async () => {
    const { app } = await withConsole();
    const sessions = await request(app).get('/v1/sessions').auth(TEST_KEY, { type: 'bearer' });
    expect(sessions.status).toBe(200);
    expect(sessions.headers['cache-control']).toBe('no-store');
    const refused = await request(app).get('/v1/sessions');
    expect(refused.status).toBe(401);
    expect(refused.headers['cache-control']).toBe('no-store');
  });
});

/**
 * The Dockerfile and docker-compose.yml, as far as a machine without a Docker engine can prove them:
 * the compose file's shape (Redis healthy before the demo, not published on the host, two instances
 * sharing it), and the image's runtime stage played out in a temporary folder standing for `/app`:
 * its COPY and RUN steps (production dependencies only), then its CMD on 127.0.0.1 and its
 * HEALTHCHECK against it, on Redis as compose runs it (keys under a prefix of its own). Needs the npm
 * registry or npm's cache for `npm ci --omit=dev`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { waitUntil } from 'nestjs-a2a/testing';
import { ensureBuilt } from './support/built-demo.js';
import { freePort } from './support/ports.js';

const run = promisify(execFile);
const ROOT = process.cwd();

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions by stage (continuation lines joined, comments dropped). */
async function dockerfileStages(): Promise<Array<{ from: string; steps: Instruction[] }>> {
  const text = (await readFile(join(ROOT, 'Dockerfile'), 'utf8')).replace(/\\\n/g, ' ');
  const stages: Array<{ from: string; steps: Instruction[] }> = [];
  for (const line of text.split('\n')) {
    const match = /^([A-Z]+)\s+(.*)$/.exec(line.trim());
    if (!match || line.trim().startsWith('#')) continue;
    const [, keyword, args] = match;
    if (keyword === 'FROM') stages.push({ from: args, steps: [] });
    else stages[stages.length - 1].steps.push({ keyword, args });
  }
  return stages;
}

const execForm = (args: string): string[] => JSON.parse(args) as string[];

describe('docker-compose.yml', () => {
  let compose: { services: Record<string, { image?: string; build?: unknown; ports?: string[]; healthcheck?: unknown; depends_on?: Record<string, { condition: string }>; environment?: Record<string, string> }> };
  beforeAll(async () => {
    compose = parse(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
  });

  it('Redis has a healthcheck and is not published on the host (a local Redis keeps 6379)', () => {
    expect(compose.services.redis.healthcheck).toMatchObject({ test: ['CMD', 'redis-cli', 'ping'] });
    expect(compose.services.redis.ports).toBeUndefined();
  });

  it('two demo instances of one image share that Redis, start only once it is healthy, and publish on loopback only', () => {
    const demos = Object.entries(compose.services).filter(([name]) => name !== 'redis');
    expect(demos.length).toBeGreaterThanOrEqual(2);
    for (const [name, service] of demos) {
      expect([name, service.build, service.image]).toEqual([name, '.', 'nestjs-a2a-demo']);
      expect([name, service.depends_on]).toEqual([name, { redis: { condition: 'service_healthy' } }]);
      expect([name, service.environment?.REDIS_URL]).toEqual([name, 'redis://redis:6379/0']);
      for (const port of service.ports ?? []) expect([name, port]).toEqual([name, expect.stringMatching(/^127\.0\.0\.1:\d+:3000$/)]);
      expect(service.environment?.PUBLIC_URL).toBe(`http://${service.ports![0].split(':').slice(0, 2).join(':')}`);
    }
  });
});

describe('Dockerfile', () => {
  let stages: Awaited<ReturnType<typeof dockerfileStages>>;
  let runtime: Instruction[];
  let app: string;
  let child: ChildProcess | undefined;
  const prefix = uniquePrefix();

  beforeAll(async () => {
    stages = await dockerfileStages();
    runtime = stages[stages.length - 1].steps;
  });
  afterAll(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (app) await rm(app, { recursive: true, force: true });
    await deleteKeysUnder(prefix);
  });

  it('is multi-stage: the runtime stage installs production dependencies only, runs as a non-root user, has a HEALTHCHECK', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runs = runtime.filter((s) => s.keyword === 'RUN').map((s) => s.args);
    expect(runs.some((r) => /npm ci\b.*--omit=dev/.test(r))).toBe(true);
    expect(runs.some((r) => /npm (i|install|ci)\b/.test(r) && !/--omit=dev/.test(r))).toBe(false);
    const user = runtime.filter((s) => s.keyword === 'USER').map((s) => s.args);
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime.some((s) => s.keyword === 'HEALTHCHECK' && /\bCMD\s+\[/.test(s.args))).toBe(true);
  });

  it('its runtime stage, played out in a folder: the production install runs the CMD, which passes the HEALTHCHECK', async () => {
    // the build stage's output: `npm run build`, as its RUN does (shared with other specs, built once)
    await ensureBuilt();
    app = await mkdtemp(join(tmpdir(), 'nestjs-a2a-image-'));
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
    for (const { keyword, args } of runtime) {
      if (keyword === 'ENV') for (const [, name, value] of args.matchAll(/(\w+)=(\S+)/g)) env[name] = value;
      if (keyword === 'COPY') {
        const [first, ...rest] = args.split(/\s+/);
        const fromBuild = first.startsWith('--from=');
        const paths = fromBuild ? rest : [first, ...rest];
        const destination = paths.pop()!;
        for (const source of paths) {
          const from = fromBuild ? join(ROOT, source.replace(/^\/app\//, '')) : join(ROOT, source);
          const to = destination.endsWith('/') ? join(app, destination, source.split('/').pop()!) : join(app, destination);
          await cp(from, to, { recursive: true });
        }
      }
      if (keyword === 'RUN') {
        // the shared npm cache stands in for the registry where it can
        await run('sh', ['-c', args.replace(/npm ci /g, 'npm ci --prefer-offline ').replace(/&& npm cache clean --force/, '')], { cwd: app, env, maxBuffer: 16 * 1024 * 1024 });
      }
    }
    const port = await freePort();
    const [command, ...commandArgs] = execForm(runtime.find((s) => s.keyword === 'CMD')!.args);
    // the container binds every interface; here loopback only. On Redis, as compose runs it: the optional peers are in
    const runEnv = { ...env, HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, REDIS_URL, A2A_REDIS_PREFIX: prefix };
    let output = '';
    child = spawn(command === 'node' ? process.execPath : command, commandArgs, { cwd: app, env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil(() => /nestjs-a2a demo ready on/.test(output) || child!.exitCode !== null, { attempts: 400, intervalMs: 50 });
    expect(output).toContain('nestjs-a2a demo ready on');

    const healthcheck = runtime.find((s) => s.keyword === 'HEALTHCHECK')!.args.replace(/^.*?\bCMD\s+/, '');
    const [check, ...checkArgs] = execForm(healthcheck);
    const passed = await run(check === 'node' ? process.execPath : check, checkArgs, { cwd: app, env: runEnv }).then(
      () => true,
      () => false,
    );
    expect(passed).toBe(true);
    // production dependencies only: no test tool made it in
    await expect(run(process.execPath, ['-e', "require.resolve('jest')"], { cwd: app })).rejects.toBeDefined();
  }, 300_000);
});

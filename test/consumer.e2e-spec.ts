/**
 * The package as users get it: `npm pack`, then three fresh apps (Nest 12 ESM, Nest 12 CommonJS,
 * Nest 11 CommonJS) built from the README's "Add it to your app" files, installed with a plain
 * `npm install` and compiled with the TypeScript each kind uses. Each boots with its own API-key
 * APP_GUARD and `@Public()` marker and is driven by the official `@a2a-js/sdk` client over both
 * bindings. Needs the npm registry (the apps' dependencies; npm's cache is shared).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { SendMessageRequest, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client, type TransportFactory } from '@a2a-js/sdk/client';
import { rejectionOf } from 'nestjs-a2a/testing';
import { APP_KINDS, buildApp, packLibrary, readmeAppFiles, readmeFirstCalls, startApp, type RunningConsumer } from './support/consumer-apps.js';

const run = promisify(execFile);
const BUILD_TIMEOUT_MS = 15 * 60_000;
/** The key of the README's first calls (`API_KEYS=alice:key-1`). */
const API_KEY = 'key-1';

const BINDINGS: Array<{ binding: 'JSONRPC' | 'HTTP+JSON'; path: string; factory: (fetchImpl: typeof fetch) => TransportFactory }> = [
  { binding: 'JSONRPC', path: '/a2a/jsonrpc', factory: (fetchImpl) => new JsonRpcTransportFactory({ fetchImpl }) },
  { binding: 'HTTP+JSON', path: '/a2a/rest', factory: (fetchImpl) => new RestTransportFactory({ fetchImpl }) },
];

/** Requests go to loopback only, with the app's key when `key` is given. */
function fetchWith(key: string | undefined): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing to leave loopback: ${url}`);
    const headers = new Headers(init?.headers);
    if (key !== undefined) headers.set('X-API-Key', key);
    return fetch(input, { ...init, headers });
  };
}

function send(text: string, configuration?: Record<string, unknown>): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: `consumer-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] }, ...(configuration ? { configuration } : {}) });
}

function asTask(result: Message | Task): Task {
  if ('messageId' in result) throw new Error(`expected a task: ${JSON.stringify(result)}`);
  return result;
}

const artifactText = (task: Task) => task.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).join('');

function describeEvent(event: StreamResponse): string {
  const p = event.payload;
  if (p?.$case === 'task') return `task:${TaskState[p.value.status!.state]}`;
  if (p?.$case === 'statusUpdate') return `status:${TaskState[p.value.status!.state]}`;
  if (p?.$case === 'artifactUpdate') {
    const text = p.value.artifact!.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
    return `artifact:${text}${p.value.lastChunk ? '(last chunk)' : ''}`;
  }
  return p?.$case ?? 'empty';
}

describe('the packed nestjs-a2a in fresh apps', () => {
  let workspace: string;
  let tarball: string;
  const builds = new Map<string, Promise<string>>();

  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'nestjs-a2a-consumers-'));
    tarball = await packLibrary(join(workspace, 'pack'));
    const files = await readmeAppFiles();
    expect([...files.keys()].sort()).toEqual(['src/app.module.ts', 'src/auth/api-key.guard.ts', 'src/auth/public.decorator.ts', 'src/main.ts', 'src/writer.agent.ts']);
    // installs are mostly waiting on the network and the cache: all three at once
    for (const kind of APP_KINDS) builds.set(kind.folder, buildApp(kind, workspace, tarball, files));
    await Promise.allSettled(builds.values());
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  describe('the tarball', () => {
    let files: string[];
    let unpacked: string;
    beforeAll(async () => {
      unpacked = join(workspace, 'unpacked');
      await mkdir(unpacked);
      await run('tar', ['-xzf', tarball, '-C', unpacked]);
      files = (await readdir(join(unpacked, 'package'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => relative(join(unpacked, 'package'), join(e.parentPath, e.name)));
    });
    const manifest = async () => JSON.parse(await readFile(join(unpacked, 'package/package.json'), 'utf8'));

    it('holds the licence (Apache-2.0, as the A2A project), the README and the CHANGELOG', async () => {
      expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json']));
      expect((await manifest()).license).toBe('Apache-2.0');
      expect(await readFile(join(unpacked, 'package/LICENSE'), 'utf8')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
      expect(await readFile(join(unpacked, 'package/README.md'), 'utf8')).toContain('## Add it to your app');
    });

    it('has nothing but the build and those files; no spec, and testing helpers only under an explicit ./testing entry', async () => {
      const pkg = await manifest();
      expect(files.filter((f) => !f.startsWith('dist/') && !['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json'].includes(f))).toEqual([]);
      expect(files.filter((f) => /\.spec\.|\.e2e-spec\.|\.tsbuildinfo$/.test(f))).toEqual([]);
      // the ./testing entry (dist/testing.js) and the folder of its modules (dist/testing/), nothing else named testing
      const entry = String(pkg.exports['./testing'].import).replace(/^\.\//, '').replace(/\.js$/, '');
      const testingFiles = files.filter((f) => /(^|\/)testing(\/|\.)/.test(f));
      expect(testingFiles.length).toBeGreaterThan(0);
      expect(testingFiles.filter((f) => !f.startsWith(`${entry}/`) && !f.startsWith(`${entry}.`))).toEqual([]);
    });

    it('maps every compiled file to sources it carries (no ../src that is not shipped)', async () => {
      const maps = files.filter((f) => f.endsWith('.map'));
      expect(maps.length).toBeGreaterThan(0);
      for (const map of maps) {
        const { sources, sourcesContent } = JSON.parse(await readFile(join(unpacked, 'package', map), 'utf8'));
        expect([map, sourcesContent?.length]).toEqual([map, sources.length]);
        expect([map, sourcesContent.every((text: unknown) => typeof text === 'string' && text.length > 0)]).toEqual([map, true]);
      }
    });

    it('every entry loads through import and require: types first, import, and a default or require condition; engines says Node 20.19+', async () => {
      const pkg = await manifest();
      for (const [entry, target] of Object.entries(pkg.exports as Record<string, unknown>)) {
        if (entry === './package.json') continue;
        const conditions = Object.keys(target as object);
        expect([entry, conditions[0], conditions.includes('import'), conditions.includes('default') || conditions.includes('require')]).toEqual([entry, 'types', true, true]);
      }
      expect(pkg.engines.node).toBe('^20.19.0 || >=22.12.0');
      expect(pkg.peerDependencies['@nestjs/common']).toBe('^11.2.0 || ^12.0.0');
    });
  });

  describe.each(APP_KINDS)('$label', (kind) => {
    let dir: string;
    let app: RunningConsumer;

    beforeAll(async () => {
      dir = await builds.get(kind.folder)!;
      app = await startApp(dir, { API_KEYS: `alice:${API_KEY}` });
    }, 60_000);

    afterAll(async () => {
      await app?.stop();
    });

    it('starts: the module names its agent, card and guard', () => {
      expect(app.output()).toContain(
        `Agent "writer" ready (default agent, also at /.well-known/agent-card.json): card ${app.url}/agents/writer/.well-known/agent-card.json; security: guarded by ApiKeyGuard (apiKey)`,
      );
    });

    it('loads one copy of the module through require() and import(): instanceof holds across both', async () => {
      const probe = [
        "const required = require('nestjs-a2a');",
        "import('nestjs-a2a').then((imported) => {",
        '  const error = new required.TaskNotFoundError();',
        '  console.log(JSON.stringify({',
        '    same: required.A2AModule === imported.A2AModule && required.TaskNotFoundError === imported.TaskNotFoundError,',
        '    instanceOf: error instanceof imported.TaskNotFoundError && error instanceof imported.A2AError && new imported.TaskNotFoundError() instanceof required.A2AError,',
        '  }));',
        '});',
      ].join('\n');
      const { stdout } = await run(process.execPath, ['--input-type=commonjs', '-e', probe], { cwd: dir });
      expect(JSON.parse(stdout)).toEqual({ same: true, instanceOf: true });
    });

    it('loads its client and testing entries through require() and import(), outside any test runner', async () => {
      const probe = [
        "const entries = ['nestjs-a2a/client', 'nestjs-a2a/testing'];",
        'Promise.all(entries.map((entry) => import(entry))).then((imported) => {',
        '  console.log(JSON.stringify(entries.map((entry, i) => typeof require(entry)[i === 0 ? "A2AClient" : "InProcessA2A"] === "function" && require(entry) !== undefined && Object.keys(imported[i]).length > 0)));',
        '});',
      ].join('\n');
      const { stdout } = await run(process.execPath, ['--input-type=commonjs', '-e', probe], { cwd: dir });
      expect(JSON.parse(stdout)).toEqual([true, true]);
    });

    it("answers the README's first calls as written: curl on both bindings, then npx nestjs-a2a from the app's own install", async () => {
      const commands = await readmeFirstCalls();
      expect(commands).toHaveLength(5);
      const results = [];
      for (const command of commands) {
        // the README's port is 3000; this app's is free
        const shell = await run('bash', ['-c', command.replaceAll('http://127.0.0.1:3000', app.url)], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
        results.push(shell);
      }
      const [card, jsonRpc, stream, cliCard, cliStream] = results;
      expect(JSON.parse(card.stdout)).toMatchObject({ name: 'writer' });
      const answer = JSON.parse(jsonRpc.stdout);
      expect(answer).toMatchObject({ id: 1, result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } } });
      expect(answer.result.task.artifacts[0].parts.map((p: { text: string }) => p.text).join('')).toBe('hello agents ');
      const events = stream.stdout.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice('data: '.length)));
      expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      expect(cliCard.stdout.split('\n')[0]).toBe('writer  (version 1.0.0)');
      expect(cliCard.stderr).toBe(`nestjs-a2a: trusting ${app.url}, the address you gave (plain http, a loopback address); other URLs its card names must pass the egress policy (--allow-http, --allow-private)\n`);
      expect(cliStream.stdout.trim().split('\n').at(-1)).toMatch(/^#9 status {4}COMPLETED$/);
    });

    describe.each(BINDINGS)('@a2a-js/sdk over $binding', ({ binding, path, factory }) => {
      let client: Client;
      let anonymous: Client;

      beforeAll(async () => {
        // the card is fetched without the key: it is public
        const cardResolver = new DefaultAgentCardResolver({ fetchImpl: fetchWith(undefined) });
        client = await new ClientFactory({ transports: [factory(fetchWith(API_KEY))], cardResolver }).createFromUrl(app.url);
        anonymous = await new ClientFactory({ transports: [factory(fetchWith(undefined))], cardResolver }).createFromUrl(app.url);
      });

      it('card: public, both bindings, the guard declared', async () => {
        const card = await client.getAgentCard();
        expect(card.name).toBe('writer');
        expect(card.capabilities?.streaming).toBe(true);
        expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual(
          expect.arrayContaining([
            ['JSONRPC', `${app.url}/a2a/jsonrpc`],
            ['HTTP+JSON', `${app.url}/a2a/rest`],
          ]),
        );
        expect(Object.keys(card.securitySchemes)).toEqual(['apiKey']);
        expect(client.transport.protocolName).toBe(binding);
      });

      it('send: the task ends COMPLETED with the words back', async () => {
        const task = asTask(await client.sendMessage(send('hello from a fresh app')));
        expect(TaskState[task.status!.state]).toBe('TASK_STATE_COMPLETED');
        expect(artifactText(task)).toBe('hello from a fresh app ');
      });

      it('stream: WORKING, then the artifact chunk by chunk, its last chunk, then COMPLETED', async () => {
        const events: string[] = [];
        for await (const event of client.sendMessageStream(send('three streamed words'))) events.push(describeEvent(event));
        expect(events).toEqual([
          'task:TASK_STATE_SUBMITTED',
          'status:TASK_STATE_WORKING',
          'artifact:three ',
          'artifact:streamed ',
          'artifact:words ',
          'artifact:(last chunk)',
          'status:TASK_STATE_COMPLETED',
        ]);
      });

      it('get: the task as it ended', async () => {
        const sent = asTask(await client.sendMessage(send('get me')));
        const got = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
        expect(got.id).toBe(sent.id);
        expect(TaskState[got.status!.state]).toBe('TASK_STATE_COMPLETED');
        expect(artifactText(got)).toBe('get me ');
      });

      it('cancel: a running task ends CANCELED', async () => {
        const words = Array.from({ length: 600 }, (_, i) => `w${i}`).join(' '); // a minute of writing
        const running = asTask(await client.sendMessage(send(words, { returnImmediately: true })));
        const canceled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
        expect(TaskState[canceled.status!.state]).toBe('TASK_STATE_CANCELED');
        expect(TaskState[(await client.getTask({ tenant: '', id: running.id })).status!.state]).toBe('TASK_STATE_CANCELED');
      });

      it('401 without the key, in the binding\'s shape', async () => {
        expect(await rejectionOf(anonymous.sendMessage(send('no key')))).toBeInstanceOf(Error);
        const raw = await fetch(`${app.url}${path}${binding === 'JSONRPC' ? '' : '/message:send'}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify(binding === 'JSONRPC' ? { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } } : { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
        });
        expect(raw.status).toBe(401);
      });
    });

    // last, so the start-up card check (one loopback request at "ready") has long had its answer
    it('printed no warning of any kind: none from Node (require of ESM), none about the card', () => {
      expect(app.output()).not.toMatch(/WARN|Warning/);
    });
  });
});

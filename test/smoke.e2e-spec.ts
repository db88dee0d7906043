import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnDemo } from './support/built-demo.js';
import { startDemo, type RunningApp } from './support/demo-app.js';

describe('demo app', () => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  it('serves the card and answers a message over JSON-RPC', async () => {
    const card: any = await (await fetch(`${demo.url}/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces[0]).toEqual({ url: `${demo.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    const res = await fetch(`${demo.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
    });
    const body: any = await res.json();
    expect(body.result.message.parts).toEqual([{ text: 'echo: hi' }]);
  });
});

describe('the built demo picks its platform with PLATFORM', () => {
  it.each([
    { env: {}, platform: 'express' },
    { env: { PLATFORM: 'fastify' }, platform: 'fastify' },
  ])('runs on $platform and names it in its start-up log ($env)', async ({ env, platform }) => {
    const demo = await spawnDemo(env);
    try {
      const res = await fetch(`${demo.url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
      });
      expect(((await res.json()) as any).message.parts).toEqual([{ text: 'echo: hi' }]);
      expect(demo.stdout()).toContain(`nestjs-a2a demo ready on ${demo.url} (platform: ${platform})`);
    } finally {
      await demo.stop();
    }
  }, 180_000);

  it('refuses an unknown PLATFORM at start-up', async () => {
    await expect(spawnDemo({ PLATFORM: 'koa' })).rejects.toThrow(/PLATFORM must be one of express, fastify/);
  }, 180_000);
});

describe('the library', () => {
  /** Files under `dir`, recursively, that end in `.ts` and are not specs. */
  async function sources(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { withFileTypes: true, recursive: true });
    return entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts')).map((e) => join(e.parentPath, e.name));
  }

  it('loads neither HTTP platform itself: an Express app never loads Fastify, nor the reverse', async () => {
    const imports: string[] = [];
    for (const file of await sources('libs/a2a/src')) {
      const text = await readFile(file, 'utf8');
      // a value import or require of a platform package (type-only imports are erased)
      for (const match of text.matchAll(/^import (?!type )[^;]*?from '((?:@nestjs\/platform-[\w-]+|fastify|express)(?:\/[^']*)?)'|(?:import|require)\('((?:@nestjs\/platform-[\w-]+|fastify|express)[^']*)'\)/gm)) {
        imports.push(`${file}: ${match[1] ?? match[2]}`);
      }
    }
    expect(imports).toEqual([]);
  });
});

/**
 * The HTTP platforms the module serves. A suite that runs on each wraps its blocks in
 * `describeOnEachPlatform` (or `describe.each(PLATFORMS)`); the apps its tests start with
 * `startApp`, `startDemo`, `createTestApp` or `createPlatformApp` run on the platform of the block
 * running now, Express outside such a block. Fastify's adapter is loaded only when asked for.
 */
import { afterAll, beforeAll, describe } from '@jest/globals';
import type { INestApplication, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { TestingModule } from '@nestjs/testing';

export type Platform = 'express' | 'fastify';

export const PLATFORMS: readonly Platform[] = ['express', 'fastify'];

/** The largest JSON body each platform's own parser takes by default (Nest's Express parser; Fastify's `bodyLimit`). */
export const HOST_JSON_LIMIT: Readonly<Record<Platform, number>> = { express: 100_000, fastify: 1_048_576 };

let current: Platform = 'express';

/** The platform of the `describeOnEachPlatform` block running now; Express outside one. */
export function currentPlatform(): Platform {
  return current;
}

/** `describe(title, body)` once on each platform ("title on fastify"). */
export function describeOnEachPlatform(title: string, body: () => void): void {
  describe.each(PLATFORMS)(`${title} on %s`, (platform) => {
    beforeAll(() => {
      current = platform;
    });
    afterAll(() => {
      current = 'express';
    });
    body();
  });
}

/** Options of a test app: Nest's, and the platform it runs on (the current one unless said). */
export interface TestAppOptions extends NestApplicationOptions {
  platform?: Platform;
}

async function fastifyAdapter() {
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return new FastifyAdapter();
}

/** The app of `moduleRef` on its platform, not yet listening. */
export async function createTestApp(moduleRef: TestingModule, { platform = current, ...options }: TestAppOptions): Promise<INestApplication> {
  if (platform === 'express') return moduleRef.createNestApplication(options);
  return moduleRef.createNestApplication(await fastifyAdapter(), options);
}

/** `NestFactory.create(module, options)` on the platform, as an app's main.ts makes it. */
export async function createPlatformApp(module: Parameters<typeof NestFactory.create>[0], { platform = current, ...options }: TestAppOptions): Promise<INestApplication> {
  if (platform === 'express') return NestFactory.create(module, options);
  return NestFactory.create(module, await fastifyAdapter(), options);
}

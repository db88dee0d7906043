/**
 * The HTTP platforms the module serves, for suites that run on each (`describe.each(PLATFORMS)`).
 * Fastify's adapter is loaded only when a test asks for it.
 */
import type { INestApplication, NestApplicationOptions } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';

export type Platform = 'express' | 'fastify';

export const PLATFORMS: readonly Platform[] = ['express', 'fastify'];

/** Options of a test app: Nest's, and the platform it runs on (Express unless said). */
export interface TestAppOptions extends NestApplicationOptions {
  platform?: Platform;
}

/** The app of `moduleRef` on its platform, not yet listening. */
export async function createTestApp(moduleRef: TestingModule, { platform = 'express', ...options }: TestAppOptions): Promise<INestApplication> {
  if (platform === 'express') return moduleRef.createNestApplication(options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return moduleRef.createNestApplication(new FastifyAdapter(), options);
}

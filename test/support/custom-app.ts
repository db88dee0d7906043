/** Boots a Nest app with the module configured by the test, on 127.0.0.1 with an ephemeral port. */
import { Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { RunningApp } from './demo-app.js';
import { createTestApp, type TestAppOptions } from './platforms.js';

export async function startApp(
  a2aModule: DynamicModule,
  providers: Provider[],
  options: TestAppOptions = { logger: false },
  extraImports: Array<Type | DynamicModule> = [],
): Promise<RunningApp> {
  @Module({ imports: [a2aModule, ...extraImports], providers })
  class TestAppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [TestAppModule] }).compile();
  const app = await createTestApp(moduleRef, options);
  await app.listen(0, '127.0.0.1');
  return { app, url: await app.getUrl(), close: () => app.close() };
}

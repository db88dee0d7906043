/** Boots the demo app (src/) on 127.0.0.1 with an ephemeral port, as `npm start` would. */
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module.js';
import { createTestApp, type TestAppOptions } from './platforms.js';
import { freePort } from './ports.js';

export interface RunningApp {
  app: INestApplication;
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * `env`: the demo's environment variables (DEMO_API_KEYS, ...), as `npm start` would read them.
 * Without `PORT`, a free port is picked first and given to the demo as `PORT`, as `npm start`
 * would: the demo's default peer (its own `echo`, for the `support` agent) is addressed by it.
 * `options.platform`: Express (the default) or Fastify.
 */
export async function startDemo(env: NodeJS.ProcessEnv = {}, options: TestAppOptions = { logger: false }): Promise<RunningApp> {
  for (let attempt = 1; ; attempt++) {
    const port = env.PORT === undefined ? await freePort() : Number(env.PORT);
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.fromEnv({ ...env, PORT: String(port) })] }).compile();
    const app = await createTestApp(moduleRef, options);
    try {
      await app.listen(port, '127.0.0.1');
    } catch (error) {
      await app.close().catch(() => undefined);
      // another process took the port between the pick and the listen: pick again
      if (env.PORT === undefined && (error as { code?: unknown }).code === 'EADDRINUSE' && attempt < 5) continue;
      throw error;
    }
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return { app, url, close: () => app.close() };
  }
}

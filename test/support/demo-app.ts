/** Boots the demo app (src/) on 127.0.0.1 with an ephemeral port, as `npm start` would. */
import type { INestApplication, NestApplicationOptions } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module.js';

export interface RunningApp {
  app: INestApplication;
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** `env`: the demo's environment variables (DEMO_API_KEYS, ...), as `npm start` would read them. */
export async function startDemo(env: NodeJS.ProcessEnv = {}, options: NestApplicationOptions = { bodyParser: false, logger: false }): Promise<RunningApp> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.fromEnv(env)] }).compile();
  const app = moduleRef.createNestApplication(options);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, close: () => app.close() };
}

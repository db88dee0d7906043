/**
 * The README's bull-board recipe, as an app would write it, run in a child process of its own by
 * test/push-bullmq.e2e-spec.ts: `@bull-board/nestjs` is CommonJS that require()s Nest, which Node
 * loads (Nest is ESM) and jest's ESM mode does not. Plain JavaScript over the built library
 * (`npm run build`), on BOARD_REDIS_URL under BOARD_REDIS_PREFIX. Over IPC: { type: 'ready', url },
 * and { type: 'stop' } closes the app.
 */
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BullBoardModule } from '@bull-board/nestjs';
import { ExpressAdapter } from '@bull-board/express';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { A2AAgent, A2AModule, A2A_PUSH_QUEUE_NAME } from '../../libs/a2a/dist/index.js';

class BoardAgent {
  async execute(ctx) {
    await ctx.complete();
  }
}
Injectable()(BoardAgent);
A2AAgent({ name: 'board', description: 'An agent beside the board', skills: [{ id: 'b', name: 'B', description: 'b', tags: ['b'] }] })(BoardAgent);

class BoardApp {}
Module({
  imports: [
    A2AModule.forRoot({ redis: { url: process.env.BOARD_REDIS_URL, keyPrefix: process.env.BOARD_REDIS_PREFIX }, push: {} }),
    BullBoardModule.forRoot({ route: '/queues', adapter: ExpressAdapter }),
    BullBoardModule.forFeature({ name: A2A_PUSH_QUEUE_NAME, adapter: BullMQAdapter }),
  ],
  providers: [BoardAgent],
})(BoardApp);

const app = await NestFactory.create(BoardApp, { logger: ['error', 'fatal'] });
await app.listen(0, '127.0.0.1');
process.on('message', async (message) => {
  if (message?.type === 'stop') {
    await app.close();
    process.exit(0);
  }
});
process.send({ type: 'ready', url: await app.getUrl() });

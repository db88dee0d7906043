import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { A2AModule } from '../a2a.module.js';
import { TaskNotFoundError } from '../protocol/errors.js';
import { A2AAgent } from '../server/a2a-agent.decorator.js';
import type { AgentExecutor } from '../tasks/agent-executor.js';
import type { TaskContext } from '../tasks/task-context.js';
import { InProcessA2A } from './in-process-a2a.js';
import { rejectionOf } from './thrown.js';

@A2AAgent({ name: 'echo', description: 'Echoes', skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['echo'] }] })
@Injectable()
class EchoAgent implements AgentExecutor {
  async execute(ctx: TaskContext) {
    await ctx.working();
    await ctx.complete(`echo: ${ctx.text} (${ctx.caller.subject})`);
  }
}

@Module({ imports: [A2AModule.forRoot()], providers: [EchoAgent] })
class AppModule {}

const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } });

describe('InProcessA2A', () => {
  let app: INestApplicationContext;
  beforeAll(async () => {
    app = await NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false });
  });
  afterAll(() => app.close());

  it('answers unary operations with ProtoJSON, as the caller given', async () => {
    const a2a = InProcessA2A.of(app, { caller: { subject: 'alice' } });
    const sent = (await a2a.call('SendMessage', message('hi'))) as { task: { id: string; status: { state: string; message: { parts: Array<{ text: string }> } } } };
    expect(sent.task.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'echo: hi (alice)' }] } });
    expect(await a2a.call('GetTask', { id: sent.task.id })).toMatchObject({ id: sent.task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    // another caller's task is not found, as on the wire
    await rejectionOf(InProcessA2A.of(app, { caller: { subject: 'bob' } }).call('GetTask', { id: sent.task.id }), TaskNotFoundError);
  });

  it('streams the events of a streaming operation, with their sequence numbers', async () => {
    const a2a = InProcessA2A.of(app, { agent: 'echo' });
    const events = [];
    for await (const event of await a2a.stream('SendStreamingMessage', message('streamed'))) events.push(event);
    expect(events.map((e) => Object.keys(e.event as object)[0])).toEqual(['task', 'statusUpdate', 'statusUpdate']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('says which method an operation needs', async () => {
    const a2a = InProcessA2A.of(app);
    await expect(a2a.call('SendStreamingMessage', message('x'))).rejects.toThrow('SendStreamingMessage streams: use stream()');
    await expect(a2a.stream('GetTask', { id: 'x' })).rejects.toThrow('GetTask does not stream: use call()');
  });
});

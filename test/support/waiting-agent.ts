/** An agent whose task reaches WORKING and then waits until it is canceled: a stream on it stays open. */
import { Injectable } from '@nestjs/common';
import { A2AAgent, type AgentExecutor, type TaskContext } from 'nestjs-a2a';

@A2AAgent({ name: 'waiter', description: 'Works until its task is canceled', skills: [{ id: 'w', name: 'W', description: 'w', tags: ['w'] }] })
@Injectable()
export class WaitingAgent implements AgentExecutor {
  async execute(ctx: TaskContext) {
    await ctx.working();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
  }
}

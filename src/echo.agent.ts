/**
 * The demo's default agent, `echo`: fixed behaviour that conformance suites, interop clients and
 * benchmarks drive (see README, "The demo agent").
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { A2AAgent, textPart, type AgentExecutor, type Message, type TaskContext } from 'nestjs-a2a';

const MODES = ['text/plain', 'application/json'];
const SLOW_DEFAULT_MS = 1500;
const SLOW_MAX_MS = 120_000;
const STREAM_TEXTS: Record<string, string> = {
  'tck-stream-001': 'Stream hello from TCK',
  'tck-stream-003': 'Stream task lifecycle',
  'tck-stream-ordering-001': 'Ordered output',
  'tck-stream-artifact-text': 'Streamed text content',
};
const GENERATED = 'Generated text content';

@A2AAgent({
  name: 'echo',
  description: 'Echoes what it is sent; /task, /ask, /fail and the tck-* message ids drive the task lifecycle.',
  defaultInputModes: MODES,
  defaultOutputModes: MODES,
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Answers with the text it was sent, as a message or, for /task, as a task artifact.',
      tags: ['echo', 'demo'],
      examples: ['hello', '/task hello', '/task slow 3000 hello', '/ask'],
    },
  ],
})
@Injectable()
export class EchoAgent implements AgentExecutor {
  async execute(ctx: TaskContext): Promise<void> {
    const id = ctx.message.messageId;
    // the TCK drives multi-turn tasks by message id too (a tck-input-required follow-up asks again)
    if (id.startsWith('tck-')) return this.tck(ctx, id);
    if (ctx.task) return this.continueTask(ctx);
    if (id.startsWith('test-resubscribe-message-id')) {
      await ctx.working();
      await wait(4000, ctx.signal);
      return ctx.complete();
    }
    const text = ctx.text.trim();
    if (text.startsWith('/task slow')) return this.slowTask(ctx, text.slice('/task slow'.length).trim());
    if (text.startsWith('/task')) {
      await ctx.working();
      await ctx.addArtifact({ name: 'echo', parts: [{ text: `echo: ${text.slice('/task'.length).trim()}` }] });
      return ctx.complete();
    }
    if (text.startsWith('/chat')) return this.chat(ctx, text.slice('/chat'.length).trim());
    if (text.startsWith('/ask')) return ctx.inputRequired('What should I echo?');
    if (text.startsWith('/fail')) return ctx.fail('Failed as asked (/fail).');
    if (text.startsWith('/reject')) return ctx.reject('Rejected as asked (/reject).');
    if (text.startsWith('/throw')) throw new Error(`SECRET-${randomBytes(8).toString('hex')}`);
    return ctx.reply(`echo: ${ctx.text}`);
  }

  /** The next (non-tck) message on an interrupted task completes it: /ask echoes the answer. */
  private async continueTask(ctx: TaskContext): Promise<void> {
    const opener = ctx.task?.history?.find((m) => m.role === 'ROLE_USER');
    if (opener?.messageId.startsWith('tck-')) return ctx.complete();
    await ctx.addArtifact({ name: 'echo', parts: [{ text: `echo: ${ctx.text}` }] });
    return ctx.complete();
  }

  private async tck(ctx: TaskContext, id: string): Promise<void> {
    if (id.startsWith('tck-complete-task')) return ctx.complete('Hello from TCK');
    if (id.startsWith('tck-input-required')) return ctx.inputRequired('Please provide more input.');
    if (id.startsWith('tck-auth-required')) return ctx.authRequired('Authorization is required: sign in to the demo service, then send a message on this task.');
    if (id.startsWith('tck-reject-task')) return ctx.reject('The demo agent rejects this task (tck-reject-task).');
    if (id.startsWith('tck-delayed-complete')) {
      await ctx.working();
      await wait(2000, ctx.signal);
      return ctx.complete('Done after delay');
    }
    if (id.startsWith('tck-message-response')) return ctx.reply('Direct message response');
    if (id.startsWith('tck-artifact-text')) {
      await ctx.addArtifact({ parts: [{ text: GENERATED }] });
      return ctx.complete();
    }
    if (id.startsWith('tck-artifact-file-url')) {
      await ctx.addArtifact({ parts: [{ url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' }] });
      return ctx.complete();
    }
    if (id.startsWith('tck-artifact-file')) {
      await ctx.addArtifact({ parts: [rawTextFile()] });
      return ctx.complete();
    }
    if (id.startsWith('tck-artifact-data')) {
      await ctx.addArtifact({ parts: [{ data: { key: 'value', count: 42 } }] });
      return ctx.complete();
    }
    if (id.startsWith('tck-stream-002')) return ctx.complete();
    if (id.startsWith('tck-stream-artifact-file')) {
      await ctx.working();
      await ctx.addArtifact({ parts: [rawTextFile()] });
      return ctx.complete();
    }
    if (id.startsWith('tck-stream-artifact-chunked')) {
      await ctx.working();
      await ctx.appendText('chunk-1 ');
      await ctx.appendText('chunk-2', { lastChunk: true });
      return ctx.complete();
    }
    if (id.startsWith('tck-stream-')) {
      await ctx.working();
      const key = Object.keys(STREAM_TEXTS).find((k) => id.startsWith(k));
      await ctx.addArtifact({ parts: [{ text: key ? STREAM_TEXTS[key] : 'Stream output' }] });
      return ctx.complete();
    }
    return ctx.complete();
  }

  /**
   * `/chat <text>`: a task whose artifact says which `/chat` of the conversation (its contextId, this
   * caller's) this is and what the first one said: `turn 3; first: <text>`.
   */
  private async chat(ctx: TaskContext, said: string): Promise<void> {
    const { turns, omitted } = await ctx.conversation({ maxTurns: 100 });
    const chats = turns.map((turn) => textOf(turn.messages.find((m) => m.role === 'ROLE_USER'))).filter((text) => text.startsWith('/chat'));
    const first = omitted > 0 ? '(too long ago)' : (chats[0]?.slice('/chat'.length).trim() ?? said);
    await ctx.addArtifact({ name: 'chat', parts: [textPart(`turn ${omitted + chats.length + 1}; first: ${first}`)] });
    return ctx.complete();
  }

  /** `/task slow [ms] [text]`: a cancel ends the wait at once, with no artifact. */
  private async slowTask(ctx: TaskContext, args: string): Promise<void> {
    const match = /^(\d+)\s*(.*)$/s.exec(args);
    const ms = match ? Math.min(Number(match[1]), SLOW_MAX_MS) : SLOW_DEFAULT_MS;
    const rest = match ? match[2] : args;
    await ctx.working();
    if (!(await wait(ms, ctx.signal))) return;
    await ctx.addArtifact({ name: 'echo', parts: [{ text: `echo: ${rest}` }] });
    return ctx.complete();
  }
}

function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => p.text ?? '').join('\n').trim();
}

function rawTextFile() {
  return { raw: Buffer.from(GENERATED).toString('base64'), filename: 'output.txt', mediaType: 'text/plain' };
}

/** Waits `ms`; false when the task was canceled first. */
async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

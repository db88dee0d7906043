/**
 * The demo's second agent, `support`: delegates to its peers' tools deterministically (no model),
 * so tests and interop clients can drive the outbound side (see README, "The demo agent").
 *
 * `/delegate <peer>__<skill> <text>` runs that tool as a step of a task and answers with the
 * peer's reply as an artifact; `/research <text>` asks three of its tools and answers in its own
 * words, its progress `step 1/3` .. `step 3/3` and nothing about the tools; anything else gets a
 * Message listing the tools it can use.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { A2AAgent, A2AError, textPart, type A2APeerOptions, type AgentExecutor, type Part, type TaskContext } from 'nestjs-a2a';
import { PeerToolError, PeerToolProvider, type PeerTool, type PeerToolErrorCode } from 'nestjs-a2a/client';
import type { DemoPeer } from './demo-config.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What `/research` asks its tools, one angle per step (the tools in turn when it has fewer than three). */
const RESEARCH_ANGLES = ['background', 'evidence', 'objections'] as const;

/**
 * What the caller of `support` is told when a tool call fails: the code and what it means. The
 * error's own message names the peer's URLs (redacted, but they still map this agent's network),
 * so it goes to the log only.
 */
const FAILURE_TEXT: Readonly<Record<PeerToolErrorCode, string>> = {
  TOOL_UNAVAILABLE: 'the peer is unavailable',
  TOOL_TIMEOUT: 'the peer did not answer in time',
  TOOL_NOT_GRANTED: 'this tool is not granted to you',
  TOOL_DENIED: 'the call was not approved',
  TOOL_INVALID_INPUT: 'the input does not fit the tool',
};

/**
 * The demo's peers as module options: optional (the default peer is the demo itself, not yet
 * listening while the app starts), and plain `http` allowed for peers on this machine only.
 */
export function demoPeerOptions(peers: readonly DemoPeer[]): A2APeerOptions[] {
  return peers.map(({ name, url }) => {
    let host = '';
    try {
      host = new URL(url).hostname;
    } catch {
      // left to the module's checks, which name the problem
    }
    const local = LOOPBACK_HOSTS.has(host) || host.startsWith('127.');
    return { name, url, optional: true, ...(local ? { egress: { allowHttp: true, allowHosts: [host.replace(/^\[|\]$/g, '')] } } : {}) };
  });
}

@A2AAgent({
  name: 'support',
  description: "Delegates to its peer agents' skills: /delegate <peer>__<skill> <text>, or /research <text> across three of them.",
  skills: [
    {
      id: 'delegate',
      name: 'Delegate',
      description:
        "Calls a peer agent's skill as a tool (/delegate <peer>__<skill> <text>) and answers with the peer's reply; /research <text> asks three tools and answers in its own words; any other text lists the tools.",
      tags: ['delegate', 'demo'],
      examples: ['/delegate echo__echo hello', '/research the A2A protocol', 'which tools?'],
    },
  ],
})
@Injectable()
export class SupportAgent implements AgentExecutor {
  private readonly logger = new Logger('SupportAgent');

  constructor(@Inject(PeerToolProvider) private readonly peers: PeerToolProvider) {}

  async execute(ctx: TaskContext): Promise<void> {
    const tools = await this.peers.tools(ctx.caller);
    const research = /^\/research\s+([\s\S]+)$/.exec(ctx.text.trim());
    if (research) return this.research(ctx, research[1], tools);
    const match = /^\/delegate\s+(\S+)\s?([\s\S]*)$/.exec(ctx.text.trim());
    const tool = match ? tools.find((t) => t.name === match[1]) : undefined;
    if (!match || !tool) {
      const unknown = match ? `No tool is named ${match[1]}. ` : '';
      return ctx.reply(`${unknown}${listing(tools)}`);
    }
    let reply;
    try {
      reply = await ctx.runTool(tool, { text: match[2] });
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      // the peer's failure is the task's outcome, told plainly; where the peer is, only the log says
      if (error instanceof PeerToolError) {
        this.logger.warn(`Task ${ctx.taskId}: ${error.message}`);
        return ctx.fail(`${error.code}${error.retriable ? ' (retriable)' : ''}: ${tool.name}: ${FAILURE_TEXT[error.code]}`);
      }
      if (error instanceof A2AError) {
        this.logger.warn(`Task ${ctx.taskId}: ${tool.name}: the peer answered ${error.name}: ${error.message}`);
        return ctx.fail(`${tool.name}: the peer answered ${error.name}`);
      }
      throw error;
    }
    const parts: Part[] = [{ text: reply.text }, ...reply.data.map((data) => ({ data }))];
    await ctx.addArtifact({
      name: tool.name,
      parts,
      // the peer's words, passed on: whoever reads them should know where they come from
      metadata: { peer: reply.peer, skill: reply.skill, untrusted: true, ...(reply.state === undefined ? {} : { peerState: reply.state }) },
    });
    return ctx.complete();
  }

  /**
   * `/research <text>`: three tool steps, then an answer of its own. The wire shows `step i/3` and
   * the answer; which tools and peers were asked, and what, only `ToolCallEvents` listeners hear. A
   * failing tool is left uncaught: the task fails saying which step failed.
   */
  private async research(ctx: TaskContext, question: string, tools: readonly PeerTool[]): Promise<void> {
    if (tools.length === 0) return ctx.reply(listing(tools));
    ctx.expectSteps(RESEARCH_ANGLES.length);
    let sources = 0;
    for (const [i, angle] of RESEARCH_ANGLES.entries()) {
      const found = await ctx.runTool(tools[i % tools.length], { text: `${angle}: ${question}` });
      if (found.text.trim() !== '') sources += 1;
    }
    // the peers' words are untrusted and would repeat what was asked: the answer is the agent's own
    await ctx.addArtifact({ name: 'research', parts: [textPart(`research: ${question} (${sources} sources)`)] });
    return ctx.complete();
  }
}

function listing(tools: readonly PeerTool[]): string {
  if (tools.length === 0) return 'No peer tools are available right now.';
  return `Tools I can use (/delegate <tool> <text>): ${tools.map((t) => t.name).join(', ')}`;
}

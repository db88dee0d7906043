/**
 * The demo's `support` agent: delegates to its peers' tools through PeerToolProvider, by default to
 * the demo's own `echo` agent over HTTP on 127.0.0.1 (not listening yet when the app starts, so the
 * peer is optional and looked up lazily).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startBrokenPeer } from './support/broken-peer.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { freePort } from './support/ports.js';
import { jsonRpcClient, restClient, userMessage, type BindingClient, type Json } from './support/wire-client.js';

let demo: RunningApp;
beforeAll(async () => {
  demo = await startDemo();
});
afterAll(() => demo.close());

describe('the support agent', () => {
  it('publishes its card with one skill, delegate', async () => {
    const card: Json = await (await fetch(`${demo.url}/agents/support/.well-known/agent-card.json`)).json();
    expect(card.name).toBe('support');
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['delegate']);
    expect(card.supportedInterfaces[0].url).toBe(`${demo.url}/agents/support/a2a/jsonrpc`);
  });

  describe.each<[string, () => BindingClient]>([
    ['JSON-RPC', () => jsonRpcClient(`${demo.url}/agents/support/a2a/jsonrpc`)],
    ['HTTP+JSON', () => restClient(`${demo.url}/agents/support/a2a/rest`)],
  ])('over %s', (_binding, clientOf) => {
    it('/delegate echo__echo hello: a Task COMPLETED with the peer\'s reply as an artifact', async () => {
      const { result, error } = await clientOf().call('SendMessage', { message: userMessage('/delegate echo__echo hello') });
      expect(error).toBeUndefined();
      const task = result.task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts).toHaveLength(1);
      expect(task.artifacts[0].name).toBe('echo__echo');
      expect(task.artifacts[0].parts).toEqual([{ text: 'echo: hello' }]);
      expect(task.artifacts[0].metadata).toMatchObject({ peer: 'echo', skill: 'echo', untrusted: true });
    });

    it('streams WORKING (step 1), the artifact, then COMPLETED', async () => {
      const { events, error } = await clientOf().stream('SendStreamingMessage', { message: userMessage('/delegate echo__echo /task streamed') });
      expect(error).toBeUndefined();
      const described = events.map(({ data }) => {
        if (data.task) return `task:${data.task.status.state}`;
        if (data.statusUpdate) return `status:${data.statusUpdate.status.state}:${data.statusUpdate.status.message?.parts?.[0]?.text ?? ''}`;
        return `artifact:${data.artifactUpdate.artifact.parts[0].text}`;
      });
      expect(described).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING:step 1', 'artifact:echo: streamed', 'status:TASK_STATE_COMPLETED:']);
    });

    it('any other text: a Message listing the tools it can use', async () => {
      const { result } = await clientOf().call('SendMessage', { message: userMessage('what can you do?') });
      expect(result.message.parts[0].text).toBe('Tools I can use (/delegate <tool> <text>): echo__echo');
      const unknown = await clientOf().call('SendMessage', { message: userMessage('/delegate nope__x hi') });
      expect(unknown.result.message.parts[0].text).toBe('No tool is named nope__x. Tools I can use (/delegate <tool> <text>): echo__echo');
    });
  });

  it("an unreachable peer has no tools; a peer that fails mid-call fails the task with the tool's error, redacted", async () => {
    // a card whose interface is a closed port on this machine, with a secret in its URL
    const peer = await startBrokenPeer('http://127.0.0.1:1/rpc?token=SECRET-abc');
    // a port just closed on this machine: another origin than the broken interface's, so their breakers are apart
    const closedPort = await freePort();
    const other = await startDemo({ DEMO_PEERS: `gone=http://127.0.0.1:${closedPort},broken=http://127.0.0.1:${peer.port}` });
    try {
      const client = jsonRpcClient(`${other.url}/agents/support/a2a/jsonrpc`);
      const listed = await client.call('SendMessage', { message: userMessage('tools?') });
      expect(listed.result.message.parts[0].text).toBe('Tools I can use (/delegate <tool> <text>): broken__fix');
      const { result } = await client.call('SendMessage', { message: userMessage('/delegate broken__fix please') });
      expect(result.task.status.state).toBe('TASK_STATE_FAILED');
      const said = result.task.status.message.parts[0].text;
      expect(said).toBe('TOOL_UNAVAILABLE (retriable): broken__fix: the peer is unavailable');
      // neither the peer's URL nor its secret reaches the caller of support
      expect(JSON.stringify(result)).not.toContain('SECRET-abc');
      expect(JSON.stringify(result)).not.toMatch(/127\.0\.0\.1|https?:\/\//);
    } finally {
      await other.close();
      await peer.close();
    }
  });
});

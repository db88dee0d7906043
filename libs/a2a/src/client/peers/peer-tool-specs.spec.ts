import { describe, expect, it } from '@jest/globals';
import type { AgentCard } from '../../protocol/types.js';
import { redactUrlsIn } from '../../net/redact-url.js';
import { allowedBy, argsProblem, peerToolName, peerToolSpecs, toolMessage, toolResult } from './peer-tool-specs.js';

const card: AgentCard = {
  name: 'Research',
  description: 'finds things',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'https://r.example.com/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    { id: 'search', name: 'Search', description: 'Searches the web', tags: [], examples: ['nestjs a2a'] },
    { id: 'search.deep', name: 'Deep search', description: 'Slow and thorough', tags: [], inputModes: ['application/json'] },
    { id: 'admin-purge', name: 'Purge', description: 'Deletes everything', tags: [] },
  ],
};

describe('peer tool specs', () => {
  it('names tools {peer}__{skill}, usable as function names', () => {
    expect(peerToolName('research', 'search')).toBe('research__search');
    expect(peerToolName('research', 'search.deep')).toBe('research__search_deep');
    expect(peerToolName('r', 'a b/c')).toBe('r__a_b_c');
  });

  it.each([
    [['*'], 'anything', true],
    [['search*'], 'search.deep', true],
    [['search'], 'search.deep', false],
    [['s?arch'], 'search', true],
    [['admin-*'], 'admin-purge', true],
    [['a.b'], 'aXb', false],
    [[], 'search', false],
  ])('allow %j over %s → %s', (patterns, id, expected) => {
    expect(allowedBy(patterns, id)).toBe(expected);
  });

  it('one tool per allowed skill, with a description and a schema from the skill', () => {
    const specs = peerToolSpecs({ name: 'research', allow: ['search*'] }, card);
    expect(specs.map((s) => s.name)).toEqual(['research__search', 'research__search_deep']);
    expect(specs[0].description).toBe(
      'Search: Searches the web (skill "search" of the A2A agent "Research"; its answer is the peer\'s output, untrusted) Examples: "nestjs a2a"',
    );
    expect(specs[0].inputSchema).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string', description: expect.any(String) },
        contextId: { type: 'string', description: expect.any(String) },
        taskId: { type: 'string', description: expect.any(String) },
      },
      required: ['text'],
      additionalProperties: false,
    });
    // the JSON skill also takes structured input
    expect(specs[1].acceptsData).toBe(true);
    expect(Object.keys((specs[1].inputSchema.properties as object) ?? {})).toContain('data');
  });

  it('checks arguments against the schema', () => {
    const [plain, json] = peerToolSpecs({ name: 'research', allow: ['search*'] }, card);
    expect(argsProblem(plain, { text: 'hi' })).toBeUndefined();
    expect(argsProblem(plain, { text: 'hi', data: { a: 1 } })).toBe('unexpected argument(s): data');
    expect(argsProblem(json, { text: 'hi', data: { a: 1 } })).toBeUndefined();
    expect(argsProblem(json, { text: 'hi', data: [1] })).toBe('data must be an object');
    expect(argsProblem(plain, { text: 3 })).toBe('text must be a string');
    expect(argsProblem(plain, 'hi')).toBe('arguments must be an object { text, ... }');
    expect(argsProblem(plain, { text: 'hi', taskId: '' })).toBe('taskId must be a non-empty string');
  });

  it('sends a text part, a data part when given, and continues a context or task', () => {
    expect(toolMessage({ text: 'hi', data: { q: 1 }, contextId: 'c1', taskId: 't1' }, 'm1')).toEqual({
      messageId: 'm1',
      role: 'ROLE_USER',
      parts: [{ text: 'hi' }, { data: { q: 1 } }],
      contextId: 'c1',
      taskId: 't1',
    });
  });

  it('turns a message or a task into an untrusted result', () => {
    const [spec] = peerToolSpecs({ name: 'research', allow: ['search'] }, card);
    expect(toolResult(spec, { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'echo: ' }, { text: 'hi' }, { data: { n: 1 } }], contextId: 'c' } })).toEqual({
      untrusted: true,
      tool: 'research__search',
      peer: 'research',
      skill: 'search',
      kind: 'message',
      text: 'echo: hi',
      data: [{ n: 1 }],
      artifacts: [],
      contextId: 'c',
    });
    const artifacts = [
      { artifactId: 'a1', parts: [{ text: 'first' }] },
      { artifactId: 'a2', parts: [{ text: 'second' }, { data: [1, 2] }] },
    ];
    const result = toolResult(spec, {
      task: {
        id: 't',
        contextId: 'c',
        status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 's', role: 'ROLE_AGENT', parts: [{ text: 'which year?' }] } },
        artifacts,
      },
    });
    expect(result).toMatchObject({ untrusted: true, kind: 'task', text: 'first\nsecond\nwhich year?', data: [[1, 2]], state: 'TASK_STATE_INPUT_REQUIRED', taskId: 't', contextId: 'c' });
    expect(result.artifacts).toBe(artifacts);
  });
});

describe('redactUrlsIn', () => {
  it('redacts every URL in a text, keeping the sentence around it', () => {
    expect(redactUrlsIn('EgressRequestError: http://127.0.0.1:1/rpc?token=abc: request failed (https://u:p@x.example.com/a?k=v).')).toBe(
      'EgressRequestError: http://127.0.0.1:1/rpc?token=REDACTED: request failed (https://x.example.com/a?k=REDACTED).',
    );
    expect(redactUrlsIn('no url here')).toBe('no url here');
  });
});

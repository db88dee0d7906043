/** Server-Sent Events framing (spec digest §2.5). */
import { describe, expect, it } from '@jest/globals';
import { jsonRpcResult } from './jsonrpc.js';
import { SSE_HEADERS, SSE_HEARTBEAT, formatSseEvent, formatSseJson, parseLastEventId, type SseEventOptions } from './sse.js';

const statusUpdate = { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } };
const statusJson = '{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_WORKING"}}}';

describe('formatSseEvent', () => {
  it.each<{ name: string; data: unknown; options: SseEventOptions | undefined; expected: string }>([
    { name: 'REST event, data only', data: statusUpdate, options: undefined, expected: `data: ${statusJson}\n\n` },
    { name: 'with id', data: statusUpdate, options: { id: 7 }, expected: `id: 7\ndata: ${statusJson}\n\n` },
    { name: 'with id 0', data: statusUpdate, options: { id: 0 }, expected: `id: 0\ndata: ${statusJson}\n\n` },
    { name: 'with a string id', data: statusUpdate, options: { id: '12' }, expected: `id: 12\ndata: ${statusJson}\n\n` },
    {
      name: 'REST error event',
      data: { error: { code: 404, status: 'NOT_FOUND', message: 'Task not found', details: [] } },
      options: { event: 'error', id: 3 },
      expected: 'event: error\nid: 3\ndata: {"error":{"code":404,"status":"NOT_FOUND","message":"Task not found","details":[]}}\n\n',
    },
    {
      name: 'JSON-RPC event carries the request id (§2.5)',
      data: jsonRpcResult(1, statusUpdate),
      options: { id: 5 },
      expected: `id: 5\ndata: {"jsonrpc":"2.0","id":1,"result":${statusJson}}\n\n`,
    },
    { name: 'empty event name is left out', data: {}, options: { event: '' }, expected: 'data: {}\n\n' },
  ])('$name', ({ data, options, expected }) => {
    expect(formatSseEvent(data, options)).toBe(expected);
    expect(formatSseJson(JSON.stringify(data), options)).toBe(expected);
  });

  it('keeps JSON on one data line even when strings hold line breaks', () => {
    const frame = formatSseEvent({ message: { parts: [{ text: 'line 1\nline 2\r\nline 3' }] } }, { id: 1 });
    expect(frame.split('\n')).toEqual(['id: 1', 'data: {"message":{"parts":[{"text":"line 1\\nline 2\\r\\nline 3"}]}}', '', '']);
  });
});

describe('SSE constants', () => {
  it('heartbeat is a comment event', () => {
    expect(SSE_HEARTBEAT.startsWith(':')).toBe(true);
    expect(SSE_HEARTBEAT.endsWith('\n\n')).toBe(true);
  });

  it('headers: text/event-stream, no caching or buffering', () => {
    expect(SSE_HEADERS['Content-Type']).toBe('text/event-stream');
    expect(SSE_HEADERS['Cache-Control']).toContain('no-cache');
    expect(SSE_HEADERS['X-Accel-Buffering']).toBe('no');
  });
});

describe('parseLastEventId', () => {
  it.each<{ value: string | undefined; expected: number | undefined }>([
    { value: '42', expected: 42 },
    { value: '0', expected: 0 },
    { value: ' 17 ', expected: 17 },
    { value: '007', expected: 7 },
    { value: '999999999999999', expected: 999999999999999 },
    { value: undefined, expected: undefined },
    { value: '', expected: undefined },
    { value: 'abc', expected: undefined },
    { value: '-1', expected: undefined },
    { value: '1.5', expected: undefined },
    { value: '1e3', expected: undefined },
    { value: '12abc', expected: undefined },
    { value: '0x10', expected: undefined },
    { value: '1234567890123456', expected: undefined },
  ])('$value → $expected', ({ value, expected }) => {
    expect(parseLastEventId(value)).toBe(expected);
  });
});

/**
 * The demo's `/metrics`: after some traffic, Prometheus text with the library's metrics, through
 * OpenTelemetry's Prometheus exporter (the demo installs it; no SDK is installed by this test).
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { startDemo, type RunningApp } from './support/demo-app.js';
import { jsonRpcClient, restClient, userMessage } from './support/wire-client.js';

let demo: RunningApp;

beforeAll(async () => {
  // guarded: a scraper carries no key, and /metrics is public
  demo = await startDemo({ DEMO_API_KEYS: 'alice:key-1' });
});

afterAll(async () => {
  await demo?.close();
});

it('answers Prometheus text with the A2A metrics, by method, binding, agent, state and outcome', async () => {
  const key = { headers: { 'X-API-Key': 'key-1' } };
  const rpc = jsonRpcClient(`${demo.url}/a2a/jsonrpc`);
  const rest = restClient(`${demo.url}/a2a/rest`);
  expect((await rpc.call('SendMessage', { message: userMessage('/task one') }, key)).result.task.status.state).toBe('TASK_STATE_COMPLETED');
  expect((await rest.call('SendMessage', { message: userMessage('/fail') }, key)).result.task.status.state).toBe('TASK_STATE_FAILED');
  expect((await rest.stream('SendStreamingMessage', { message: userMessage('/task streamed') }, key)).events.length).toBeGreaterThan(1);
  expect((await rpc.call('GetTask', { id: 'missing' }, key)).error?.reason).toBe('TASK_NOT_FOUND');

  const res = await fetch(`${demo.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await res.text();
  const lines = text.split('\n');
  const sample = (prefix: string, ...labels: string[]) => lines.find((l) => l.startsWith(prefix) && labels.every((label) => l.includes(label)));

  expect(text).toMatch(/^# TYPE rpc_server_call_duration histogram$/m);
  expect(sample('rpc_server_call_duration_count', 'rpc_method="SendMessage"', 'a2a_binding="JSONRPC"', 'a2a_agent="echo"')).toMatch(/ 1$/);
  expect(sample('rpc_server_call_duration_count', 'rpc_method="SendMessage"', 'a2a_binding="HTTP+JSON"')).toMatch(/ 1$/);
  expect(sample('rpc_server_call_duration_count', 'rpc_method="GetTask"', 'error_type="TASK_NOT_FOUND"')).toMatch(/ 1$/);
  expect(sample('a2a_task_finished_total', 'a2a_task_state="TASK_STATE_COMPLETED"')).toMatch(/ 2$/);
  expect(sample('a2a_task_finished_total', 'a2a_task_state="TASK_STATE_FAILED"')).toMatch(/ 1$/);
  expect(sample('a2a_turn_duration_count', 'a2a_agent="echo"')).toBeDefined();
  // the stream has ended: none open
  expect(sample('a2a_server_open_streams', 'rpc_method="SendStreamingMessage"')).toMatch(/ 0$/);
  // never an id or a text
  expect(text).not.toMatch(/a2a_task_id|a2a_context_id|echo: /);
});

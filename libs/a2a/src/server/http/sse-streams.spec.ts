/** SseStreams on a real HTTP server on 127.0.0.1: slots and limits, the shared heartbeat, a client's leaving, shutdown. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, get, type ClientRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResourceExhaustedError } from '../../protocol/errors.js';
import { SSE_HEARTBEAT } from '../../protocol/sse.js';
import { waitUntil } from '../../testing/wait-until.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { SseStreams, type SseStream } from './sse-streams.js';

interface Client {
  readonly request: ClientRequest;
  text: string;
  ended: boolean;
}

describe('SseStreams', () => {
  let server: Server | undefined;
  let streams: SseStreams | undefined;

  afterEach(async () => {
    streams?.closeAll();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  /** A server whose every request opens a stream of `caller` (or is refused with the error's name); `opened` gets each stream. */
  async function serve(options: { maxStreams: number; maxStreamsPerCaller: number; heartbeatMs: number }, opened: SseStream[], closedBy: string[]): Promise<string> {
    const own = (streams = new SseStreams({ streaming: options } as ResolvedServerOptions));
    server = createServer((req, res: ServerResponse) => {
      let stream: SseStream;
      try {
        stream = own.reserve(req.headers['x-caller'] as string, res);
      } catch (error) {
        res.writeHead(429).end((error as Error).name);
        return;
      }
      stream.open({});
      stream.onClosed({ streamClosed: () => closedBy.push(req.url!) });
      opened.push(stream);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  }

  function open(origin: string, path: string, caller = 'alice'): Client {
    const client: Client = { request: undefined!, text: '', ended: false };
    (client as { request: ClientRequest }).request = get(`${origin}${path}`, { headers: { 'x-caller': caller } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (client.text += chunk));
      res.on('end', () => (client.ended = true));
    }).on('error', () => undefined);
    return client;
  }

  it('counts open streams against both limits, frees the slot of a stream whose client left, and tells that stream only', async () => {
    const opened: SseStream[] = [];
    const closedBy: string[] = [];
    const origin = await serve({ maxStreams: 3, maxStreamsPerCaller: 2, heartbeatMs: 60_000 }, opened, closedBy);
    const first = open(origin, '/1');
    const second = open(origin, '/2');
    await waitUntil(() => opened.length === 2);
    const overCaller = open(origin, '/3');
    await waitUntil(() => overCaller.ended);
    expect(overCaller.text).toBe(new ResourceExhaustedError('x').name);
    const bob = open(origin, '/4', 'bob');
    await waitUntil(() => opened.length === 3);
    const overall = open(origin, '/5', 'carol');
    await waitUntil(() => overall.ended);
    expect(overall.text).toBe(new ResourceExhaustedError('x').name);
    expect(streams!.size).toBe(3);

    first.request.destroy(); // the first in the list leaves: the others stay listed
    await waitUntil(() => closedBy.length === 1);
    expect(closedBy).toEqual(['/1']);
    opened[0].close();
    expect(streams!.size).toBe(2);
    const again = open(origin, '/6');
    await waitUntil(() => opened.length === 4);
    expect(streams!.size).toBe(3);

    streams!.closeAll();
    await waitUntil(() => second.ended && bob.ended && again.ended);
    expect(streams!.size).toBe(0);
    expect(closedBy.sort()).toEqual(['/1', '/2', '/4', '/6']);
  });

  it('sends the heartbeat to every open stream, and none to one that closed', async () => {
    const opened: SseStream[] = [];
    const origin = await serve({ maxStreams: 10, maxStreamsPerCaller: 10, heartbeatMs: 20 }, opened, []);
    const clients = [open(origin, '/a'), open(origin, '/b'), open(origin, '/c')];
    await waitUntil(() => opened.length === 3);
    opened[1].close(); // the middle one of the list: the ones either side of it still get theirs
    await waitUntil(() => clients[1].ended);
    const before = clients.map((c) => c.text.length);
    await waitUntil(() => clients[0].text.length > before[0] && clients[2].text.length > before[2]);
    expect(clients[0].text.slice(before[0]).startsWith(SSE_HEARTBEAT)).toBe(true);
    expect(clients[2].text.slice(before[2]).startsWith(SSE_HEARTBEAT)).toBe(true);
    expect(streams!.size).toBe(2);
  });
});

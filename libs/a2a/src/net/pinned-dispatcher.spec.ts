/**
 * The pinned dispatcher against real servers on 127.0.0.1. Every name is answered by a fake resolver;
 * the only address any test dials is 127.0.0.1, and a refused request is shown to have opened no
 * connection at all. "Public" answers (93.184.215.14) are only ever classified, never dialled.
 */
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { fetch as undiciFetch } from 'undici';
import { EgressDeadlineError, EgressRefusedError, EgressRequestError } from './egress-errors.js';
import { EgressPolicy, type EgressPolicyOptions } from './egress-policy.js';
import { createPinnedDispatcher, type PinnedDialEvent, type PinnedDispatcher, type PinnedDispatcherOptions } from './pinned-dispatcher.js';
import { requestWithDeadline } from './request-with-deadline.js';
import { type FakeAnswer, fakeLookup, NEVER } from '../testing/fake-lookup.js';
import { type LoopbackServer, startHttpServer, startHttpsServer, startRawServer } from '../testing/loopback-server.js';
import { selfSignedCert } from '../testing/self-signed-cert.js';
import { rejectionOf } from '../testing/thrown.js';

const PUBLIC = '93.184.215.14';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

function server<T extends LoopbackServer>(s: T): T {
  open.push(s);
  return s;
}

function setup(policyOptions: EgressPolicyOptions, dns: Record<string, FakeAnswer>, options: PinnedDispatcherOptions = {}) {
  const lookup = fakeLookup(dns);
  const policy = new EgressPolicy(policyOptions);
  const dials: PinnedDialEvent[] = [];
  const dispatcher = createPinnedDispatcher(policy, { lookup, onDial: (e) => dials.push(e), ...options });
  open.push({ close: () => dispatcher.destroy() });
  return { lookup, policy, dispatcher, dials };
}

const small = { deadlineMs: 5_000, maxBodyBytes: 4_096 };

describe('pinned dispatcher: connects to exactly the checked address', () => {
  it('(a) with allowPrivate, dials 127.0.0.1 for rebind.test and keeps the name in Host', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('hello')));
    const { dispatcher, lookup, dials } = setup({ allowHttp: true, allowPrivate: true }, { 'rebind.test': ['127.0.0.1'] });

    const res = await requestWithDeadline(dispatcher, `http://rebind.test:${target.port}/hook`, small);

    expect(res.statusCode).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.truncated).toBe(false);
    expect(lookup.calls).toEqual(['rebind.test']);
    expect(dials).toEqual([{ hostname: 'rebind.test', address: '127.0.0.1', port: target.port }]);
    expect(target.connections).toEqual(['127.0.0.1']);
    expect(target.requests.map((r) => [r.url, r.host])).toEqual([['/hook', `rebind.test:${target.port}`]]);
  });

  it('resolves once per connection: a second answer is never asked for between check and dial', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('ok')));
    const { dispatcher, lookup, dials } = setup(
      { allowHttp: true, allowHosts: ['127.0.0.1/32'] },
      {
        'rebind.test': (call) => {
          if (call === 0) return ['127.0.0.1'];
          throw new Error('the name was resolved a second time');
        },
      },
      { connections: 1 },
    );

    const first = await requestWithDeadline(dispatcher, `http://rebind.test:${target.port}/one`, small);
    const second = await requestWithDeadline(dispatcher, `http://rebind.test:${target.port}/two`, small);

    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(lookup.calls).toEqual(['rebind.test']); // the kept-alive socket is reused, to the same address
    expect(dials.map((d) => d.address)).toEqual(['127.0.0.1']);
    expect(target.connections).toEqual(['127.0.0.1']);
  });

  it('resolves and checks again for every new connection', async () => {
    const target = server(
      await startHttpServer((_req, res) => {
        res.setHeader('connection', 'close'); // every request needs a new connection
        res.end('ok');
      }),
    );
    const { dispatcher, lookup, dials } = setup({ allowHttp: true, allowPrivate: true }, { 'rebind.test': ['127.0.0.1'] });

    for (const path of ['/one', '/two', '/three']) {
      expect((await requestWithDeadline(dispatcher, `http://rebind.test:${target.port}${path}`, small)).statusCode).toBe(200);
    }

    expect(lookup.calls).toEqual(['rebind.test', 'rebind.test', 'rebind.test']);
    expect(dials.map((d) => d.address)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);
    expect(target.connections).toHaveLength(3);
  });

  it('keeps SNI and certificate verification on the host name while dialling the address', async () => {
    const credentials = selfSignedCert('rebind.test');
    const target = server(await startHttpsServer(credentials, (_req, res) => res.end('tls ok')));
    const { dispatcher, dials } = setup(
      { allowPrivate: true },
      { 'rebind.test': ['127.0.0.1'], 'impostor.test': ['127.0.0.1'] },
      { tls: { ca: credentials.cert } },
    );

    const res = await requestWithDeadline(dispatcher, `https://rebind.test:${target.port}/`, small);
    expect(res.body.toString()).toBe('tls ok');
    expect(target.servernames).toEqual(['rebind.test']);
    expect(target.requests[0]?.host).toBe(`rebind.test:${target.port}`);
    expect(dials[0]?.address).toBe('127.0.0.1');

    // Same address, another name: the certificate is checked against the name, not the IP.
    const error = await rejectionOf(requestWithDeadline(dispatcher, `https://impostor.test:${target.port}/`, small));
    expect(error).toBeInstanceOf(EgressRequestError);
    expect((error as EgressRequestError).code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(target.requests).toHaveLength(1);
  });
});

describe('pinned dispatcher: refuses before connecting', () => {
  it('(b) without allowPrivate, a name resolving to 127.0.0.1 is refused and nothing connects', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('should not be reached')));
    const { dispatcher, lookup, dials } = setup({ allowHttp: true }, { 'rebind.test': ['127.0.0.1'] });

    const error = await rejectionOf(requestWithDeadline(dispatcher, `http://rebind.test:${target.port}/`, small));

    expect(error).toBeInstanceOf(EgressRefusedError);
    expect((error as EgressRefusedError).reason).toBe('loopback');
    expect((error as EgressRefusedError).address).toBe('127.0.0.1');
    expect(lookup.calls).toEqual(['rebind.test']);
    expect(dials).toEqual([]);
    expect(target.connections).toEqual([]);
  });

  it('guards the dispatcher itself: an IP origin used directly, without checkUrl, is refused at connect', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('no')));
    const { dispatcher, lookup } = setup({ allowHttp: true }, {});

    const error = await rejectionOf(dispatcher.request({ origin: `http://127.0.0.1:${target.port}`, path: '/', method: 'GET' }));

    expect((error as EgressRefusedError).reason).toBe('loopback');
    expect(lookup.calls).toEqual([]);
    expect(target.connections).toEqual([]);
  });

  it('guards fetch built on it too (fetch wraps the refusal as its cause)', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('no')));
    const { dispatcher } = setup({ allowHttp: true }, { 'rebind.test': ['127.0.0.1'] });

    const error = await rejectionOf(undiciFetch(`http://rebind.test:${target.port}/`, { dispatcher, redirect: 'manual' }));

    expect((error as Error).cause).toBeInstanceOf(EgressRefusedError);
    expect(target.connections).toEqual([]);
  });

  it('refuses a name with one allow-listed and one private answer, dialling neither', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('no')));
    const { dispatcher, dials } = setup({ allowHttp: true, allowHosts: ['127.0.0.1/32'] }, { 'rebind.test': ['127.0.0.1', '10.9.9.9'] });

    const error = await rejectionOf(requestWithDeadline(dispatcher, `http://rebind.test:${target.port}/`, small));

    expect((error as EgressRefusedError).reason).toBe('private');
    expect(dials).toEqual([]);
    expect(target.connections).toEqual([]);
  });

  it('refuses http at connect time when the policy is https-only', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('no')));
    const { dispatcher, lookup } = setup({ allowPrivate: true }, { 'rebind.test': ['127.0.0.1'] });

    const error = await rejectionOf(dispatcher.request({ origin: `http://rebind.test:${target.port}`, path: '/', method: 'GET' }));

    expect((error as EgressRefusedError).reason).toBe('scheme');
    expect(lookup.calls).toEqual([]);
    expect(target.connections).toEqual([]);
  });

  it('refuses credentials and hides query secrets before any resolution', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('no')));
    const { dispatcher, lookup } = setup({ allowHttp: true, allowPrivate: true }, { 'rebind.test': ['127.0.0.1'] });

    const error = await rejectionOf(
      requestWithDeadline(dispatcher, `http://user:pass@rebind.test:${target.port}/h?token=SECRET`, small),
    );

    expect((error as EgressRefusedError).reason).toBe('userinfo');
    expect((error as Error).message).not.toContain('pass');
    expect((error as Error).message).not.toContain('SECRET');
    expect(lookup.calls).toEqual([]);
    expect(target.connections).toEqual([]);
  });
});

describe('pinned dispatcher: DNS rebinding', () => {
  it('(c) a name that is public at registration and 127.0.0.1 at send time is refused at connect', async () => {
    const target = server(await startHttpServer((_req, res) => res.end('should not be reached')));
    const { dispatcher, policy, lookup, dials } = setup(
      { allowHttp: true },
      { 'rebind.test': (call) => (call === 0 ? [PUBLIC] : ['127.0.0.1']) },
    );
    const url = `http://rebind.test:${target.port}/hook`;

    // Registration: the URL is fine and the name resolves to a public address (nothing is dialled).
    const registered = policy.checkUrl(url);
    await expect(policy.resolveAndCheck(registered.hostname, lookup)).resolves.toEqual([{ address: PUBLIC, family: 4 }]);

    // Delivery: the attacker's DNS now answers 127.0.0.1; the connect step re-checks and refuses.
    const error = await rejectionOf(requestWithDeadline(dispatcher, url, small));

    expect((error as EgressRefusedError).reason).toBe('loopback');
    expect(lookup.calls).toEqual(['rebind.test', 'rebind.test']);
    expect(dials).toEqual([]);
    expect(target.connections).toEqual([]);
  });
});

describe('requestWithDeadline', () => {
  it('(d) returns a redirect as it is and never follows it', async () => {
    const internal = server(await startHttpServer((_req, res) => res.end('internal secrets')));
    const target = server(
      await startHttpServer((_req, res) => {
        res.writeHead(302, { location: `http://rebind.test:${internal.port}/internal` });
        res.end();
      }),
    );
    const { dispatcher, dials } = setup({ allowHttp: true, allowPrivate: true }, { 'rebind.test': ['127.0.0.1'] });

    const res = await requestWithDeadline(dispatcher, `http://rebind.test:${target.port}/hook`, { ...small, method: 'POST', body: '{}' });

    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`http://rebind.test:${internal.port}/internal`);
    expect(internal.connections).toEqual([]);
    expect(dials.map((d) => d.port)).toEqual([target.port]);
  });

  it('(d) even a caller that wrongly lets fetch follow gets the redirect target checked at connect', async () => {
    const internal = server(await startHttpServer((_req, res) => res.end('internal secrets')));
    const target = server(
      await startHttpServer((_req, res) => {
        res.writeHead(302, { location: `http://127.0.0.1:${internal.port}/internal` });
        res.end();
      }),
    );
    // The name is trusted (allow-listed), the bare loopback address it redirects to is not.
    const { dispatcher } = setup({ allowHttp: true, allowHosts: ['hook.test'] }, { 'hook.test': ['127.0.0.1'] });

    const error = await rejectionOf(undiciFetch(`http://hook.test:${target.port}/`, { dispatcher, redirect: 'follow' }));

    expect(((error as Error).cause as EgressRefusedError).reason).toBe('loopback');
    expect(target.connections).toEqual(['127.0.0.1']);
    expect(internal.connections).toEqual([]);
  });

  it('(e) cuts a server that trickles its body at the overall deadline', async () => {
    const timers: NodeJS.Timeout[] = [];
    const target = server(
      await startRawServer((socket) => {
        socket.once('data', () => {
          socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n');
          timers.push(setInterval(() => socket.write('x'), 20));
        });
      }),
    );
    open.push({ close: async () => timers.forEach((t) => clearInterval(t)) });
    const { dispatcher } = setup({ allowHttp: true, allowPrivate: true }, { 'trickle.test': ['127.0.0.1'] });

    const started = Date.now();
    const error = await rejectionOf(requestWithDeadline(dispatcher, `http://trickle.test:${target.port}/?k=secret`, { deadlineMs: 300, maxBodyBytes: 1_000_000 }));
    const elapsed = Date.now() - started;

    expect(error).toBeInstanceOf(EgressDeadlineError);
    expect((error as EgressDeadlineError).deadlineMs).toBe(300);
    expect((error as Error).message).not.toContain('secret');
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('(e) cuts a server that trickles its status line and headers at the overall deadline', async () => {
    const timers: NodeJS.Timeout[] = [];
    const target = server(
      await startRawServer((socket) => {
        socket.once('data', () => {
          const bytes = [...'HTTP/1.1 200 OK\r\nX-Slow: ' + 'y'.repeat(10_000)];
          timers.push(setInterval(() => socket.write(bytes.shift() ?? 'y'), 20));
        });
      }),
    );
    open.push({ close: async () => timers.forEach((t) => clearInterval(t)) });
    const { dispatcher } = setup({ allowHttp: true, allowPrivate: true }, { 'trickle.test': ['127.0.0.1'] });

    const started = Date.now();
    const error = await rejectionOf(requestWithDeadline(dispatcher, `http://trickle.test:${target.port}/`, { deadlineMs: 300, maxBodyBytes: 1_000 }));

    expect(error).toBeInstanceOf(EgressDeadlineError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('(f) keeps at most maxBodyBytes of a large body', async () => {
    const big = Buffer.alloc(1024 * 1024, 'z');
    const target = server(await startHttpServer((_req, res) => res.end(big)));
    const { dispatcher } = setup({ allowHttp: true, allowPrivate: true }, { 'big.test': ['127.0.0.1'] });

    const res = await requestWithDeadline(dispatcher, `http://big.test:${target.port}/`, { deadlineMs: 5_000, maxBodyBytes: 4_096 });

    expect(res.statusCode).toBe(200);
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(4_096);
    expect(res.body.equals(big.subarray(0, 4_096))).toBe(true);
  });

  it('(f) keeps at most maxBodyBytes of a chunked body without Content-Length, and a small body whole', async () => {
    const target = server(
      await startHttpServer((req, res) => {
        if (req.url === '/small') {
          res.end('accepted');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 64; i += 1) res.write('c'.repeat(1024));
        res.end();
      }),
    );
    const { dispatcher } = setup({ allowHttp: true, allowPrivate: true }, { 'big.test': ['127.0.0.1'] });

    const chunked = await requestWithDeadline(dispatcher, `http://big.test:${target.port}/chunked`, { deadlineMs: 5_000, maxBodyBytes: 1_500 });
    expect([chunked.truncated, chunked.body.length]).toEqual([true, 1_500]);

    const whole = await requestWithDeadline(dispatcher, `http://big.test:${target.port}/small`, { deadlineMs: 5_000, maxBodyBytes: 8 });
    expect([whole.truncated, whole.body.toString()]).toEqual([false, 'accepted']);
  });

  it('sends method, headers and body', async () => {
    const target = server(await startHttpServer((_req, res) => res.writeHead(204).end()));
    const { dispatcher } = setup({ allowHttp: true, allowPrivate: true }, { 'hook.test': ['127.0.0.1'] });

    const res = await requestWithDeadline(dispatcher, `http://hook.test:${target.port}/a2a?x=1`, {
      ...small,
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', authorization: 'Bearer t' },
      body: '{"statusUpdate":{}}',
    });

    expect(res.statusCode).toBe(204);
    expect(target.requests).toEqual([
      expect.objectContaining({ method: 'POST', url: '/a2a?x=1', body: '{"statusUpdate":{}}', host: `hook.test:${target.port}` }),
    ]);
    expect(target.requests[0]?.headers['content-type']).toBe('application/a2a+json');
  });

  it('reports a refused connection as EgressRequestError with its code', async () => {
    const closed = await startHttpServer((_req, res) => res.end());
    const port = closed.port;
    await closed.close(); // nothing listens on 127.0.0.1:port any more
    const { dispatcher } = setup({ allowHttp: true, allowPrivate: true }, { 'gone.test': ['127.0.0.1'] });

    const error = await rejectionOf(requestWithDeadline(dispatcher, `http://gone.test:${port}/?token=x1y2`, small));

    expect(error).toBeInstanceOf(EgressRequestError);
    expect((error as EgressRequestError).code).toBe('ECONNREFUSED');
    expect((error as Error).message).toBe(`http://gone.test:${port}/?token=REDACTED: request failed (ECONNREFUSED)`);
  });

  it('gives up connecting after connectTimeoutMs when resolution hangs', async () => {
    const { dispatcher, lookup } = setup({ allowHttp: true, allowPrivate: true }, { 'hang.test': NEVER }, { connectTimeoutMs: 150 });

    const error = await rejectionOf(requestWithDeadline(dispatcher, 'http://hang.test:9/', small));

    expect(error).toBeInstanceOf(EgressRequestError);
    expect((error as EgressRequestError).code).toBe('UND_ERR_CONNECT_TIMEOUT');
    expect(lookup.calls).toEqual(['hang.test']);
  });

  it("rethrows the caller's own abort reason", async () => {
    const target = server(await startRawServer(() => undefined)); // accepts, never answers
    const { dispatcher } = setup({ allowHttp: true, allowPrivate: true }, { 'quiet.test': ['127.0.0.1'] });
    const controller = new AbortController();
    const reason = new Error('shutting down');
    setTimeout(() => controller.abort(reason), 50);

    const error = await rejectionOf(
      requestWithDeadline(dispatcher, `http://quiet.test:${target.port}/`, { ...small, signal: controller.signal }),
    );

    expect(error).toBe(reason);
  });
});

describe('createPinnedDispatcher', () => {
  let dispatcher: PinnedDispatcher;
  beforeAll(() => {
    dispatcher = createPinnedDispatcher(new EgressPolicy());
  });

  it('carries its policy and closes cleanly', async () => {
    expect(dispatcher.policy).toBeInstanceOf(EgressPolicy);
    await dispatcher.close();
  });
});

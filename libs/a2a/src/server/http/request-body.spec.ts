import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyAnswered, bodyKnownSoFar, exposeBody, forgetBody, readBodyAhead } from './request-body.js';

const LIMITS = { maxBodyBytes: 1024, maxJsonDepth: 8 };
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SubscribeToTask', params: { id: 't1' } });

type Seen = IncomingMessage & { body?: unknown };

/** Real requests on 127.0.0.1: each handled by `handle`, answered once it returns. */
describe('readBodyAhead and forgetBody (an open stream lets go of its request body)', () => {
  let server: Server;
  let handle: (req: Seen) => Promise<void>;

  beforeAll(async () => {
    server = createServer((req, res) => void handle(req).finally(() => res.end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Posts BODY, in pieces written one after another when `pieces` > 1 (so the server reads several chunks). */
  function post(pieces = 1): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume().on('end', resolve);
      });
      req.on('error', reject);
      const size = Math.ceil(BODY.length / pieces);
      const write = (at: number): void => {
        if (at + size >= BODY.length) return void req.end(BODY.slice(at));
        req.write(BODY.slice(at, at + size));
        setTimeout(() => write(at + size), 5);
      };
      write(0);
    });
  }

  it('reads a body that comes in several chunks whole', async () => {
    let known: unknown;
    handle = async (req) => {
      await new Promise<void>((resolve) => readBodyAhead(req, LIMITS, resolve));
      known = bodyKnownSoFar(req, LIMITS);
    };
    await post(4);
    expect(known).toEqual(JSON.parse(BODY));
  });

  it('forgets what was read and the body it exposed', async () => {
    let after: { known: unknown; body: unknown } | undefined;
    handle = async (req) => {
      await new Promise<void>((resolve) => readBodyAhead(req, LIMITS, resolve));
      exposeBody(req, LIMITS);
      expect(req.body).toEqual(JSON.parse(BODY));
      forgetBody(req);
      after = { known: bodyKnownSoFar(req, LIMITS), body: req.body };
    };
    await post();
    expect(after).toEqual({ known: undefined, body: undefined });
  });

  it('lets go of what it read once the answer is written (bodyAnswered), leaving the platform request its body', async () => {
    let after: { known: unknown; platformBody: unknown } | undefined;
    let ownSymbols: { before: number; answeredUnread: number } | undefined;
    handle = async (req) => {
      // a request nothing was read of keeps its own properties as they were
      const before = Object.getOwnPropertySymbols(req).length;
      bodyAnswered(req);
      ownSymbols = { before, answeredUnread: Object.getOwnPropertySymbols(req).length };
      await new Promise<void>((resolve) => readBodyAhead(req, LIMITS, resolve));
      const platformRequest: { body?: unknown } = {};
      exposeBody(req, LIMITS, platformRequest);
      expect(bodyKnownSoFar(req, LIMITS)).toEqual(JSON.parse(BODY));
      bodyAnswered(req);
      after = { known: bodyKnownSoFar(req, LIMITS), platformBody: platformRequest.body };
    };
    await post();
    expect(after).toEqual({ known: undefined, platformBody: JSON.parse(BODY) });
    expect(ownSymbols!.answeredUnread).toBe(ownSymbols!.before);
  });

  it('leaves a body the host set itself (not the one it exposed) alone, on the platform request it is given', async () => {
    let after: { known: unknown; platformBody: unknown } | undefined;
    const hostBody = { set: 'by the host' };
    handle = async (req) => {
      await new Promise<void>((resolve) => readBodyAhead(req, LIMITS, resolve));
      const platformRequest: { body?: unknown } = {};
      exposeBody(req, LIMITS, platformRequest);
      platformRequest.body = hostBody;
      forgetBody(req, platformRequest);
      after = { known: bodyKnownSoFar(req, LIMITS), platformBody: platformRequest.body };
    };
    await post();
    expect(after).toEqual({ known: undefined, platformBody: hostBody });
  });
});

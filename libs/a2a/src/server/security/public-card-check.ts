/**
 * The first-hour trap of a host whose global guard does not know the card is public: every A2A
 * client is refused at discovery while the start-up log says "ready". Once the server listens, the
 * card is fetched over loopback as a client without credentials would; a refusal is logged once,
 * naming the guard and the fix.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_GUARD, ModulesContainer } from '@nestjs/core';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import { PublicUrl } from '../public-url.js';
import { A2A_PUBLIC, COMMON_PUBLIC_METADATA_KEY } from './a2a-public.decorator.js';

const WELL_KNOWN_CARD = '/.well-known/agent-card.json';
const CHECK_TIMEOUT_MS = 5_000;

@Injectable()
export class PublicCardCheck {
  private readonly logger = new Logger('A2A');
  private readonly stopped = new AbortController();
  /** Settles when the last check is over (never rejects). */
  done: Promise<void> = Promise.resolve();

  constructor(
    @Inject(PublicUrl) private readonly publicUrl: PublicUrl,
    @Inject(ModulesContainer) private readonly modules: ModulesContainer,
  ) {}

  /** Starts the check against the server bound at `address`; only ever dials loopback. */
  start(address: AddressInfo): void {
    const host = loopbackHostFor(address.address);
    if (host === undefined) return;
    const url = `http://${host}:${address.port}${this.publicUrl.prefixed(WELL_KNOWN_CARD)}`;
    this.done = statusOf(url, this.stopped.signal).then(
      (status) => {
        if (status === 401 || status === 403) this.logger.warn(refusedCardWarning(url, status, globalGuardNames(this.modules)));
      },
      () => undefined, // the server closed, or answers nothing in time: nothing to say about guards
    );
  }

  /** Abandons a check in flight (shutdown). */
  stop(): void {
    this.stopped.abort();
  }
}

/** The address to reach a server bound to `bound` from this machine, or undefined when not loopback. */
export function loopbackHostFor(bound: string): string | undefined {
  if (bound === '0.0.0.0') return '127.0.0.1';
  if (bound === '::') return '[::1]';
  if (!ipaddr.isValid(bound)) return undefined;
  const address = ipaddr.process(bound);
  if (address.range() !== 'loopback') return undefined;
  return address.kind() === 'ipv6' ? `[${address.toString()}]` : address.toString();
}

/** Class names of the app's `APP_GUARD` providers (Nest registers each as `APP_GUARD (UUID: …)`). */
function globalGuardNames(modules: ModulesContainer): string[] {
  const names = new Set<string>();
  for (const module of modules.values()) {
    for (const [token, wrapper] of module.providers) {
      if (typeof token !== 'string' || !token.startsWith(`${APP_GUARD} (`)) continue;
      const name = (wrapper.instance as object | undefined)?.constructor?.name ?? wrapper.metatype?.name;
      if (name && name !== 'Object') names.add(name);
    }
  }
  return [...names];
}

export function refusedCardWarning(url: string, status: number, guards: readonly string[]): string {
  const who = guards.length === 0 ? 'a global guard (app.useGlobalGuards) or a middleware' : `the global guard ${guards.join(' or ')}`;
  return (
    `The Agent Card at ${url} answers ${status} to a client without credentials: ${who} refuses it, so no agent can discover this one. ` +
    `The card must be public. Let the guard pass routes marked public: the card carries the metadata "${COMMON_PUBLIC_METADATA_KEY}" and "${A2A_PUBLIC}" (true); ` +
    'if your public marker uses another key, name it with publicRouteMetadata: { key: YOUR_KEY } beside the A2AModule options; ' +
    `or skip the routes where reflector.getAllAndOverride(A2A_PUBLIC, [context.getHandler(), context.getClass()]) is true.`
  );
}

/** The status of a GET without credentials; one connection, closed afterwards (it must not keep app.close() waiting). */
function statusOf(url: string, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, signal, timeout: CHECK_TIMEOUT_MS, headers: { connection: 'close', 'user-agent': 'nestjs-a2a (start-up card check)' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

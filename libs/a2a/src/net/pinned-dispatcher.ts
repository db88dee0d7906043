import { isIP, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Agent, buildConnector, errors } from 'undici';
import type { EgressLookup, ResolvedAddress } from './egress-lookup.js';
import type { EgressPolicy } from './egress-policy.js';

/** TLS settings a caller may add (private CAs, client certificates for mTLS). Verification stays on. */
export type PinnedTlsOptions = Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'minVersion' | 'ciphers'>;

/** What was dialled, for logs and tests. */
export interface PinnedDialEvent {
  /** The host name of the origin (what TLS SNI and certificate checks use). */
  hostname: string;
  /** The checked address the socket was opened to. */
  address: string;
  port: number;
}

/** @publicApi */
export interface PinnedDispatcherOptions {
  /** Resolver used at connect time (tests inject one); defaults to the policy's. */
  lookup?: EgressLookup;
  /**
   * Budget for opening a connection: resolution, checks, TCP and TLS handshakes, across every address
   * tried. Default 10 000 ms.
   */
  connectTimeoutMs?: number;
  /** Time allowed for the response headers once the request is sent (undici `headersTimeout`). Default 30 000 ms. */
  headersTimeoutMs?: number;
  /** Longest silence allowed between two body chunks (undici `bodyTimeout`). Default 30 000 ms. */
  bodyTimeoutMs?: number;
  /** How long an idle kept-alive socket is kept. Default 4 000 ms (undici's). */
  keepAliveTimeoutMs?: number;
  /** Sockets per origin. Default unlimited (undici's). */
  connections?: number;
  /** Extra TLS settings. `rejectUnauthorized` cannot be turned off here on purpose. */
  tls?: PinnedTlsOptions;
  /** Called once per socket opened, with the address it was opened to. */
  onDial?: (event: PinnedDialEvent) => void;
}

/**
 * An undici `Agent` whose every connection is opened through the egress policy: the origin's host is
 * resolved, every address is checked, and the socket is opened to one of exactly those addresses
 * (never to the name, which would be resolved again and could answer differently: DNS rebinding). TLS
 * SNI, certificate verification and the `Host` header keep using the original host name.
 *
 * It never follows redirects itself, and nothing built on it may: use `dispatcher.request()` /
 * `requestWithDeadline` (undici 7's `request` has no `maxRedirections` and only the `redirect`
 * interceptor follows — never `.compose()` it in), or `fetch(url, { dispatcher, redirect: 'manual' })`.
 * Even a followed redirect would still be checked at connect time, but a 3xx from a webhook or a peer is
 * an answer to report, not an invitation. Proxies are not supported: pinning means dialling the
 * destination itself.
 * @publicApi
 */
export class PinnedDispatcher extends Agent {
  constructor(
    /** The policy every connection is checked against (and `requestWithDeadline` checks URLs with). */
    readonly policy: EgressPolicy,
    options: PinnedDispatcherOptions = {},
  ) {
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    const lookup = options.lookup;
    const tcpTls = buildConnector({ ...options.tls, timeout: connectTimeoutMs });
    const connect: buildConnector.connector = (connectOptions, callback) => {
      pinnedConnect(policy, lookup, tcpTls, connectTimeoutMs, options.onDial, connectOptions, callback);
    };
    super({
      connect,
      headersTimeout: options.headersTimeoutMs ?? 30_000,
      bodyTimeout: options.bodyTimeoutMs ?? 30_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
      ...(options.connections === undefined ? {} : { connections: options.connections }),
    });
  }
}

/**
 * Builds a {@link PinnedDispatcher}. Close it (`await dispatcher.close()`) when done.
 * @publicApi
 */
export function createPinnedDispatcher(policy: EgressPolicy, options: PinnedDispatcherOptions = {}): PinnedDispatcher {
  return new PinnedDispatcher(policy, options);
}

/**
 * undici's connect step, pinned. `options.hostname` is the origin's host (brackets already stripped by
 * undici); every address it resolves to is checked before the first byte is sent anywhere.
 */
function pinnedConnect(
  policy: EgressPolicy,
  lookup: EgressLookup | undefined,
  tcpTls: buildConnector.connector,
  connectTimeoutMs: number,
  onDial: ((event: PinnedDialEvent) => void) | undefined,
  options: buildConnector.Options,
  callback: buildConnector.Callback,
): void {
  const { hostname, protocol } = options;
  const port = options.port === '' || options.port === undefined ? (protocol === 'https:' ? 443 : 80) : Number(options.port);
  let settled = false;
  let inFlight: Socket | undefined;
  const finish = (err: Error | null, socket?: Socket): void => {
    if (settled) {
      // Too late (the budget ran out first): nobody is waiting for this socket.
      socket?.destroy();
      return;
    }
    settled = true;
    clearTimeout(timer);
    if (err !== null) callback(err, null);
    else callback(null, socket!);
  };
  const timer = setTimeout(() => {
    inFlight?.destroy();
    finish(new errors.ConnectTimeoutError(`connect to ${hostname}:${port} took longer than ${connectTimeoutMs} ms`));
  }, connectTimeoutMs);

  const dial = (addresses: readonly ResolvedAddress[], index: number, lastError?: Error): void => {
    if (settled) return;
    const target = addresses[index];
    if (target === undefined) {
      finish(lastError ?? new errors.SocketError(`no address to connect to for ${hostname}`));
      return;
    }
    const servername = options.servername || (isIP(hostname) === 0 ? hostname : undefined);
    inFlight = tcpTls(
      {
        ...options,
        // The checked address is dialled; the name stays for SNI, certificate checks and the session cache.
        hostname: target.address,
        host: options.host ?? hostname,
        port: String(port),
        ...(servername === undefined ? {} : { servername }),
      },
      (err, socket) => {
        if (err !== null) {
          // Next checked address (e.g. IPv6 first and no IPv6 route): still only addresses that passed.
          dial(addresses, index + 1, err);
          return;
        }
        if (settled) {
          socket.destroy();
          return;
        }
        finish(null, socket);
        try {
          onDial?.({ hostname, address: target.address, port });
        } catch {
          // An observer's failure must not fail the connection it observes.
        }
      },
    ) as unknown as Socket;
  };

  const trusted = policy.trusts(protocol, hostname, port);
  try {
    policy.checkTransport(protocol, port, trusted);
  } catch (err) {
    // undici's own connector never calls back synchronously; neither do we.
    queueMicrotask(() => finish(err as Error));
    return;
  }
  policy.resolveAndCheck(hostname, lookup, trusted).then(
    (addresses) => dial(addresses, 0),
    (err: unknown) => finish(err as Error),
  );
}

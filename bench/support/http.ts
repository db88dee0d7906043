/**
 * The HTTP plumbing the scenarios over HTTP share (`lifecycle-http`, `push-throughput`): servers on
 * 127.0.0.1 with long keep-alive, and closing them with their connections.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The endpoints on every server (nestjs-a2a's default paths; the SDK's handlers are mounted there too). */
export const JSON_RPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';

/**
 * How long an idle keep-alive connection stays open, on the servers and in the clients. Node's
 * default (5 s) is shorter than the other stacks' turns in a round, so connections would be closed
 * and opened again between turns; with this they are opened once per server.
 */
export const KEEP_ALIVE_MS = 120_000;

/** Listens on 127.0.0.1 on a free port (calling `onConnection` for each TCP connection); resolves to the origin. */
export async function listenLocally(server: Server, onConnection?: () => void): Promise<string> {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  if (onConnection) server.on('connection', onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server`, and its keep-alive connections with it. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

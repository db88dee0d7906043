/**
 * Servers on 127.0.0.1 that record every TCP connection they accept, so a test can prove that a refused
 * request never reached them. They only ever listen on 127.0.0.1.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface SeenRequest {
  method: string;
  url: string;
  host: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface LoopbackServer {
  port: number;
  /** Local address of every TCP connection accepted (always 127.0.0.1). */
  connections: string[];
  /** SNI server name of every TLS connection (HTTPS servers only). */
  servernames: (string | false)[];
  requests: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function listen(server: HttpServer | NetServer): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

function track(server: HttpServer | NetServer, tls: boolean): { connections: string[]; servernames: (string | false)[]; sockets: Set<Socket> } {
  const connections: string[] = [];
  const servernames: (string | false)[] = [];
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.push(socket.localAddress ?? '?');
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  if (tls) server.on('secureConnection', (socket: TLSSocket) => servernames.push(socket.servername ?? false));
  return { connections, servernames, sockets };
}

async function serveHttp(server: HttpServer, handler: Handler, tls: boolean): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  const seen = track(server, tls);
  const port = await listen(server);
  return {
    port,
    connections: seen.connections,
    servernames: seen.servernames,
    requests,
    close: async () => {
      for (const socket of seen.sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP server on 127.0.0.1. */
export function startHttpServer(handler: Handler): Promise<LoopbackServer> {
  return serveHttp(createHttpServer(), handler, false);
}

/** An HTTPS server on 127.0.0.1 with the given certificate. */
export function startHttpsServer(credentials: { key: string; cert: string }, handler: Handler): Promise<LoopbackServer> {
  return serveHttp(createHttpsServer(credentials), handler, true);
}

/** A raw TCP server on 127.0.0.1: `onSocket` writes whatever bytes it likes (trickling answers). */
export async function startRawServer(onSocket: (socket: Socket) => void): Promise<LoopbackServer> {
  const server = createNetServer();
  const seen = track(server, false);
  server.on('connection', (socket: Socket) => {
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  const port = await listen(server);
  return {
    port,
    connections: seen.connections,
    servernames: seen.servernames,
    requests: [],
    close: async () => {
      for (const socket of seen.sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

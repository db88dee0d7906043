/**
 * On Express, the HTTP server makes each request and response with the Express app's own prototypes
 * (issue 14). Express 5 gives every request and response the app's prototype with
 * `Object.setPrototypeOf` as it enters the app. V8 then detaches the object's hidden class: every
 * property Express, Nest and the module add to it afterwards makes a new hidden class for that one
 * object. So each request builds about twenty hidden classes, every property access of a request or
 * response (in node, Express, Nest, here) meets a shape it has never seen, and an open stream keeps
 * its request's and response's own hidden classes (about 2 KB). Made with the app's prototypes in the
 * first place, as `http.createServer({ IncomingMessage, ServerResponse })` allows (expressjs/express#5998),
 * they share their hidden classes and Express's `setPrototypeOf` changes nothing: about half the CPU
 * of an Express request (measured: bench/README.md, branch `express`).
 *
 * Nest creates the server without those options, so the classes are put where node keeps the ones
 * it was given (two symbol-keyed properties of the server, read at each request) before the app
 * listens: only where node's own classes are still there (never over a host's own), and nowhere
 * with `httpServer: false`, which leaves the server as the host set it.
 */
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import type { ResolvedServerOptions } from '../server-options.js';

/** What is read of an Express app: the prototypes it gives its requests and responses. */
interface ExpressApp {
  request: object;
  response: object;
}

type NodeClass = typeof IncomingMessage | typeof ServerResponse;

@Injectable()
export class ExpressRequestClasses implements OnApplicationBootstrap {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {}

  /** Before the app listens (Nest calls it from `init()`); a server already listening takes them from its next request on. */
  onApplicationBootstrap(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (this.options.httpServer === false || adapter?.getType() !== 'express') return;
    const server = adapter.getHttpServer() as Server | undefined;
    const app = adapter.getInstance<Partial<ExpressApp>>();
    if (server && app?.request && app.response) useAppPrototypes(server, app as ExpressApp);
  }
}

/** Makes `server`'s requests and responses with `app`'s prototypes; false (nothing changed) unless node's own classes are found on it. */
export function useAppPrototypes(server: Server, app: ExpressApp): boolean {
  const requestSlot = slotHolding(server, IncomingMessage);
  const responseSlot = slotHolding(server, ServerResponse);
  if (requestSlot === undefined || responseSlot === undefined) return false;
  const Request = subclassOn(IncomingMessage, app.request);
  const Response = subclassOn(ServerResponse, app.response);
  // what Express sets on each request and response from now on: already theirs, so a no-op
  app.request = Request.prototype;
  app.response = Response.prototype;
  const slots = server as unknown as Record<symbol, NodeClass>;
  slots[requestSlot] = Request;
  slots[responseSlot] = Response;
  return true;
}

/** The symbol-keyed property of `server` that holds `nodeClass` (node keeps the classes it makes requests with there). */
function slotHolding(server: Server, nodeClass: NodeClass): symbol | undefined {
  return Object.getOwnPropertySymbols(server).find((key) => (server as unknown as Record<symbol, unknown>)[key] === nodeClass);
}

/**
 * A class (so its instances share their hidden classes: a plain function calling node's would give
 * each its own) whose prototype inherits from `appPrototype`: what the host or a library adds to the
 * app's prototype, now or later, is seen by every request. Named as node's, so logs and heap
 * snapshots show requests as before.
 */
function subclassOn<T extends NodeClass>(nodeClass: T, appPrototype: object): T {
  const made = { [nodeClass.name]: class extends (nodeClass as typeof IncomingMessage) {} }[nodeClass.name] as unknown as T;
  Object.setPrototypeOf(made.prototype, appPrototype);
  return made;
}

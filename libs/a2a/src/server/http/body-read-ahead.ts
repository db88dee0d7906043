/**
 * Reads the bodies of A2A requests ahead of the app's own parsers, on Express and on Fastify, so
 * one limit (`limits.maxBodyBytes`), strict UTF-8, the JSON depth and the binding-shaped refusals
 * (413, 415, 400) hold on the A2A routes whatever the content type, in a default
 * `NestFactory.create(AppModule)` app too: Nest's JSON parser would refuse a body over 100 kB
 * before the route and leave `application/a2a+json` alone; Fastify's would refuse that type (415)
 * and bodies over its `bodyLimit`, in their own shape. Other routes keep the app's parsers. On any
 * other platform the binding reads the body itself, or uses what the platform's parser made of it.
 */
import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AbstractHttpAdapter } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InjectA2AOptions } from '../../config/a2a.constants.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { BindingRoutes } from './binding-routes.js';
import { exposeBody, readBodyAhead } from './request-body.js';

/** What the Fastify hooks touch of its request. */
interface FastifyRequestLike {
  readonly raw: IncomingMessage;
  readonly url: string;
  headers: Record<string, unknown>;
  body?: unknown;
}

/** Fastify's hooks in their callback form: an async hook costs a promise and a turn per request, on every route of the app. */
interface FastifyLike {
  addHook(name: 'preParsing', hook: (request: FastifyRequestLike, reply: unknown, payload: unknown, done: (error: unknown, payload?: unknown) => void) => void): unknown;
  addHook(name: 'preValidation', hook: (request: FastifyRequestLike, reply: unknown, done: () => void) => void): unknown;
}

type WithSeenHeaders = FastifyRequestLike & { [seen: symbol]: Record<string, unknown> | undefined };

/** The body headers Fastify decides by whether, and how, to parse a body. */
const NO_BODY: Readonly<Record<string, undefined>> = Object.freeze({ 'content-type': undefined, 'content-length': undefined, 'transfer-encoding': undefined });

@Injectable()
export class BodyReadAhead {
  /**
   * The property under which a request read ahead keeps Fastify's view of its headers until it is
   * put back (a property, not a `WeakMap` entry: a set, a get and a delete per request saved).
   */
  private readonly seenHeaders = Symbol('nestjs-a2a.fastifyHeaders');

  constructor(
    @Inject(HttpAdapterHost) adapterHost: HttpAdapterHost,
    @Inject(BindingRoutes) private readonly routes: BindingRoutes,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {
    // the adapter is set before the app registers its parsers and routes (in init): what is added now runs before them
    adapterHost.init$.subscribe(() => this.install(adapterHost.httpAdapter));
  }

  private install(adapter: AbstractHttpAdapter | undefined): void {
    if (adapter?.getType() === 'express') adapter.use(this.expressMiddleware);
    if (adapter?.getType() !== 'fastify') return;
    const fastify = adapter.getInstance<FastifyLike>();
    fastify.addHook('preParsing', this.fastifyPreParsing);
    fastify.addHook('preValidation', this.fastifyPreValidation);
  }

  private readonly expressMiddleware = (req: IncomingMessage & { body?: unknown }, _res: ServerResponse, next: () => void): void => {
    if (this.routes.bindingOf(req.url) === undefined) return next();
    readBodyAhead(req, this.options.limits, () => {
      exposeBody(req, this.options.limits);
      next();
    });
  };

  /**
   * Reads the body, then hides its headers from Fastify's view of the request (`request.headers`;
   * never node's `raw.headers`, which the bindings read), so Fastify finds no body to parse.
   */
  private readonly fastifyPreParsing = (request: FastifyRequestLike, _reply: unknown, payload: unknown, done: (error: unknown, payload?: unknown) => void): void => {
    if (this.routes.bindingOf(request.url) === undefined) return done(null, payload);
    // never fails: a refusal is kept for the binding
    readBodyAhead(request.raw, this.options.limits, () => {
      const seen = request.headers;
      (request as WithSeenHeaders)[this.seenHeaders] = seen;
      // Fastify's view is node's headers merged with what is set here: when it is node's own, setting
      // only the three body headers spares a copy of every header (Fastify makes the merged one anyway)
      request.headers = seen === request.raw.headers ? NO_BODY : { ...seen, ...NO_BODY };
      done(null, payload);
    });
  };

  /** After parsing, before the route and its guards: the headers back, and `request.body` as a JSON parser would have set it. */
  private readonly fastifyPreValidation = (request: FastifyRequestLike, _reply: unknown, done: () => void): void => {
    const seen = (request as WithSeenHeaders)[this.seenHeaders];
    if (seen !== undefined) {
      (request as WithSeenHeaders)[this.seenHeaders] = undefined;
      // unset when Fastify's view was node's own headers, so it reads them directly again
      request.headers = (seen === request.raw.headers ? undefined : seen) as Record<string, unknown>;
      exposeBody(request.raw, this.options.limits, request);
    }
    done();
  };
}

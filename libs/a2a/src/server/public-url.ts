/** Where clients reach this app: the configured public URL, or the address the server listens on. */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { InjectA2AOptions } from '../config/a2a.constants.js';
import type { ResolvedServerOptions } from './server-options.js';

@Injectable()
export class PublicUrl {
  private readonly logger = new Logger('A2A');
  private warned = false;

  constructor(
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(ApplicationConfig) private readonly appConfig: ApplicationConfig,
  ) {}

  /** Absolute URL of an app path (`/a2a/rest` → `https://agents.example.com/api/a2a/rest`). */
  of(path: string): string {
    return `${this.base()}${this.prefixed(path)}`;
  }

  /** An app path with the app's global prefix, as the router serves it. */
  prefixed(path: string): string {
    const prefix = this.appConfig.getGlobalPrefix().replace(/^\/*/, '/').replace(/\/+$/, '');
    return prefix === '/' || prefix === '' ? path : `${prefix}${path}`;
  }

  private base(): string {
    if (this.options.publicUrl) return this.options.publicUrl;
    const address = this.adapterHost.httpAdapter?.getHttpServer()?.address() as AddressInfo | string | null | undefined;
    if (!address || typeof address === 'string') return 'http://127.0.0.1';
    const wildcard = address.address === '0.0.0.0' || address.address === '::';
    if (wildcard && !this.warned) {
      this.warned = true;
      this.logger.warn('The server listens on every interface and publicUrl is not set: cards name 127.0.0.1; set publicUrl to the URL clients use');
    }
    const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }
}

/**
 * The demo's `/metrics`: the library's metrics (README, "Traces and metrics") in Prometheus text,
 * through OpenTelemetry's Prometheus exporter. The library depends on `@opentelemetry/api` alone;
 * the SDK and the exporter are the app's choice, made here.
 */
import { Controller, Get, Logger, Req, Res, SetMetadata } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { IS_PUBLIC } from './api-key.guard.js';

let exporter: PrometheusExporter | undefined;

/**
 * The process's exporter, registered as the global meter provider's reader on first use (one per
 * process: metrics are process-wide). When the process already has a meter provider (an SDK the
 * host installed), that one stays and `/metrics` shows what this exporter sees: nothing.
 */
export function prometheusExporter(): PrometheusExporter {
  if (exporter === undefined) {
    // the exporter's own HTTP server stays off: the app serves the scrape on its own port
    exporter = new PrometheusExporter({ preventServerStart: true });
    if (!metrics.setGlobalMeterProvider(new MeterProvider({ readers: [exporter] }))) {
      new Logger('Demo').warn('A meter provider was registered already: /metrics shows nothing; read metrics through it');
    }
  }
  return exporter;
}

/** Public (scrapers carry no API key): metrics carry no ids, texts or credentials. */
@Controller()
export class MetricsController {
  constructor() {
    prometheusExporter();
  }

  @Get('metrics')
  @SetMetadata(IS_PUBLIC, true)
  scrape(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    prometheusExporter().getMetricsRequestHandler(req, res);
  }
}

import { Module } from '@nestjs/common';
import { A2AModule } from 'nestjs-a2a';
import { demoConfig } from './demo-config.js';
import { EchoAgent } from './echo.agent.js';

@Module({
  imports: [
    A2AModule.forRootAsync({
      useFactory: () => {
        const config = demoConfig();
        return {
          publicUrl: config.publicUrl,
          defaultAgent: 'echo',
          card: { provider: { organization: 'nestjs-a2a demo', url: 'https://github.com/nestjs-a2a/nestjs-a2a' } },
          // the longest `/task slow` is 120 s; streams: at least 20,000 overall and per caller
          limits: { executorTimeoutMs: 180_000 },
          streaming: { maxStreams: 50_000, maxStreamsPerCaller: 20_000 },
        };
      },
    }),
  ],
  providers: [EchoAgent],
})
export class AppModule {}

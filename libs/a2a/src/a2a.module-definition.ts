/** `forRoot` / `forRootAsync` from ConfigurableModuleBuilder; paths and `isGlobal` are compile-time extras. */
import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { A2AModuleExtras, A2AModuleOptions } from './config/a2a-options.js';

export const {
  ConfigurableModuleClass: ConfigurableA2AModule,
  MODULE_OPTIONS_TOKEN: A2A_MODULE_OPTIONS,
  OPTIONS_TYPE: A2A_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: A2A_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<A2AModuleOptions>({ moduleName: 'A2A' })
  .setClassMethodName('forRoot')
  .setExtras<A2AModuleExtras>({ isGlobal: false, paths: {} }, (definition) => definition)
  .build();

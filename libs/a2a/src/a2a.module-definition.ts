/** `forRoot` / `forRootAsync` from ConfigurableModuleBuilder; paths, guards and the like are compile-time extras. */
import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { A2AModuleExtras, A2AModuleOptions } from './a2a-options.js';

/** Every extra, named, so `forRoot` keeps them out of the options (ConfigurableModuleBuilder strips only the keys listed here). */
const EXTRAS: { [K in keyof Required<A2AModuleExtras>]: A2AModuleExtras[K] | undefined } = {
  isGlobal: false,
  paths: {},
  guards: undefined,
  publicRouteMetadata: undefined,
  callerResolver: undefined,
  credentialResolver: undefined,
  toolApproval: undefined,
  clients: undefined,
};

export const {
  ConfigurableModuleClass: ConfigurableA2AModule,
  MODULE_OPTIONS_TOKEN: A2A_MODULE_OPTIONS,
  OPTIONS_TYPE: A2A_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: A2A_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<A2AModuleOptions>({ moduleName: 'A2A' })
  .setClassMethodName('forRoot')
  .setExtras<A2AModuleExtras>(EXTRAS as A2AModuleExtras, (definition) => definition)
  .build();

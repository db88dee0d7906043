/** The validated, defaulted options, injectable across the module. */
import { Inject } from '@nestjs/common';

export const A2A_OPTIONS = Symbol('A2A:RESOLVED_OPTIONS');

/** Injects the resolved options (`ResolvedA2AOptions`). */
export const InjectA2AOptions = (): ParameterDecorator => Inject(A2A_OPTIONS);

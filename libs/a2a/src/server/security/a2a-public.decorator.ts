/** Marks a route as open to everyone: the Agent Card and the JWKS, nothing else of A2A. */
import { SetMetadata } from '@nestjs/common';

export const A2A_PUBLIC = 'a2a:public';

/**
 * The module's own spelling of "public route". A host guard skips a route when
 * `reflector.getAllAndOverride(A2A_PUBLIC, [handler, class])` is true — or the module marks its
 * public routes with the host's own metadata too (`publicRouteMetadata`).
 * @publicApi
 */
export const A2APublic = (): MethodDecorator & ClassDecorator => SetMetadata(A2A_PUBLIC, true);

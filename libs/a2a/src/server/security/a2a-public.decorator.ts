/** Marks a route as open to everyone: the Agent Card and the JWKS, nothing else of A2A. */
import { SetMetadata } from '@nestjs/common';

export const A2A_PUBLIC = 'a2a:public';

/**
 * The metadata key of the `@Public()` marker in Nest's authentication recipe
 * (`SetMetadata('isPublic', true)`), which most apps copied: the card and the JWKS carry it by default.
 */
export const COMMON_PUBLIC_METADATA_KEY = 'isPublic';

/**
 * The module's own spelling of "public route". A host guard skips a route when
 * `reflector.getAllAndOverride(A2A_PUBLIC, [handler, class])` is true — or the module marks its
 * public routes with the host's own metadata too (`publicRouteMetadata`; `isPublic: true` always).
 * @publicApi
 */
export const A2APublic = (): MethodDecorator & ClassDecorator => SetMetadata(A2A_PUBLIC, true);

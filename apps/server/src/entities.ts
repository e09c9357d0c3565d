import { ENGINE_ENTITIES } from '@app/engine';
import { IDENTITY_ENTITIES } from '@app/identity';

/** Every entity of the service: used by the drift test and by tools that need the whole schema. */
export const ALL_ENTITIES = [...IDENTITY_ENTITIES, ...ENGINE_ENTITIES];

import { IDENTITY_ENTITIES } from '@app/identity';
import { CAPTURE_ENTITIES } from '@app/capture-queues';

/** Every entity of the service: used by the drift test and by tools that need the whole schema. */
export const ALL_ENTITIES = [...IDENTITY_ENTITIES, ...CAPTURE_ENTITIES];

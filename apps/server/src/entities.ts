import { ENGINE_ENTITIES } from '@app/engine';
import { IDENTITY_ENTITIES } from '@app/identity';
import { AUDIT_ENTITIES } from '@app/audit';
import { UserRegistryApiKey } from '@app/api-keys';
import { CAPTURE_ENTITIES } from '@app/capture-queues';
import { IdempotencyRecord } from '@app/idempotency';

/** Every entity of the service: used by the drift test and by tools that need the whole schema. */
export const ALL_ENTITIES = [
  ...IDENTITY_ENTITIES,
  ...AUDIT_ENTITIES,
  ...CAPTURE_ENTITIES,
  ...ENGINE_ENTITIES,
  UserRegistryApiKey,
  IdempotencyRecord,
];

import { RoleRegistryPermission } from './role-registry-permission.entity';
import { RoleRegistry } from './role-registry.entity';
import { TenantRegistry } from './tenant-registry.entity';
import { UserRegistry } from './user-registry.entity';

export { RoleRegistryPermission, RoleRegistry, TenantRegistry, UserRegistry };
export const IDENTITY_ENTITIES = [TenantRegistry, RoleRegistry, RoleRegistryPermission, UserRegistry];

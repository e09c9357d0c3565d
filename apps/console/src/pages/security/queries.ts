import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';

export type User = Schemas['UserDto'];
export type Role = Schemas['RoleDto'];
export type Tenant = Schemas['TenantDto'];
export type ApiKey = Schemas['ApiKeyDto'];
export type CreatedApiKey = Schemas['CreatedApiKeyDto'];
export type PermissionEntry = Schemas['PermissionDto'];

/** The users the caller may administer: its tenant's, or every tenant's for the landlord. */
export const usersQuery = queryOptions({
  queryKey: ['security', 'users'],
  queryFn: async (): Promise<User[]> => (await unwrap(api.GET('/api/UserRegistry'))).data,
});

export const userQuery = (guid: string) =>
  queryOptions({
    queryKey: ['security', 'users', guid],
    queryFn: async (): Promise<User> =>
      (await unwrap(api.GET('/api/UserRegistry/{guid}', { params: { path: { guid } } }))).data,
  });

export const rolesQuery = queryOptions({
  queryKey: ['security', 'roles'],
  queryFn: async (): Promise<Role[]> => (await unwrap(api.GET('/api/RoleRegistry'))).data,
});

export const permissionsQuery = queryOptions({
  queryKey: ['security', 'permissions'],
  queryFn: async (): Promise<PermissionEntry[]> =>
    (await unwrap(api.GET('/api/RoleRegistry/Permissions'))).data,
  staleTime: Infinity,
});

export const tenantsQuery = queryOptions({
  queryKey: ['security', 'tenants'],
  queryFn: async (): Promise<Tenant[]> => (await unwrap(api.GET('/api/TenantRegistry'))).data,
});

export const apiKeysQuery = (userGuid: string) =>
  queryOptions({
    queryKey: ['security', 'api-keys', userGuid],
    queryFn: async (): Promise<ApiKey[]> =>
      (
        await unwrap(
          api.GET('/api/UserRegistryApiKey', { params: { query: { userRegistryGuid: userGuid } } }),
        )
      ).data,
  });

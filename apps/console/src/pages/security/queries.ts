import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';

export type User = Schemas['UserDto'];
export type Role = Schemas['RoleDto'];
export type Tenant = Schemas['TenantDto'];
export type ApiKey = Schemas['ApiKeyDto'];
export type CreatedApiKey = Schemas['CreatedApiKeyDto'];
export type PermissionEntry = Schemas['PermissionDto'];
export type RoleChoice = Schemas['RoleChoiceDto'];

/** Users a page of the Users list holds. */
export const USERS_PAGE = 50;

/** One page of a list: its items, the whole list's total (X-Total-Count) and the next page's cursor (Link). */
export interface ListPage<T> {
  items: T[];
  total: number;
  next: string | null;
}

/** The cursor of the next page, from `Link: <…?cursor=…>; rel="next"`. */
function nextCursor(response: Response): string | null {
  const link = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('Link') ?? '');
  return link ? new URL(link[1], window.location.origin).searchParams.get('cursor') : null;
}

/** Every query of the users the caller may administer (its tenant's; every tenant's for the landlord). */
export const USERS_KEY = ['security', 'users'] as const;

/** A page of those users whose name holds `search` (the service searches and pages: limit and cursor). */
export const usersPageQuery = (search: string, cursor: string | null) =>
  queryOptions({
    queryKey: [...USERS_KEY, 'page', search, cursor],
    queryFn: async (): Promise<ListPage<User>> => {
      const query = { limit: USERS_PAGE, ...(search ? { search } : {}), ...(cursor ? { cursor } : {}) };
      const { data, response } = await unwrap(api.GET('/api/UserRegistry', { params: { query } }));
      return {
        items: data,
        total: Number(response.headers.get('X-Total-Count') ?? data.length),
        next: nextCursor(response),
      };
    },
  });

/** The roles a user administrator may give, by name with their tenant's (no right to manage roles needed). */
export const assignableRolesQuery = queryOptions({
  queryKey: ['security', 'assignable-roles'],
  queryFn: async (): Promise<RoleChoice[]> =>
    (await unwrap(api.GET('/api/UserRegistry/AssignableRoles'))).data,
});

export const userQuery = (guid: string) =>
  queryOptions({
    queryKey: [...USERS_KEY, guid],
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
